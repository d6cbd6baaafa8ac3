// Sessions as the side bar lists them, and which one the extension follows when it starts. Pure.
import type { SessionInfo, Usage } from "../protocol";
import { formatTokens } from "./usageFormat";

/** A compact/sessions item (docs/protocol.schema.json's SessionInfo). */
export type SessionItem = SessionInfo;

/**
 * The Sessions view's rows: each session as last listed (compact/sessions), with its figures from the last usage the
 * server sent for it since (compact/didChangeUsage). A followed session grows between listings; its row showed 18k
 * while the gauge showed 34k. A notification changes only the figures and asks for no listing.
 */
export class SessionRows {
  private rows: SessionItem[] = [];
  /** Usages sent since the last listing was asked for, by session: newer than that listing's figures. */
  private readonly since = new Map<string, Usage>();

  /** A listing is being asked for: it holds every usage sent before, so only those sent from now on are newer. */
  listing(): void {
    this.since.clear();
  }

  /** The listing's answer. */
  listed(sessions: readonly SessionItem[]): void {
    this.rows = [...sessions];
  }

  /** The listed sessions, as listed (the tree's elements: show each with `shown`). */
  all(): readonly SessionItem[] {
    return this.rows;
  }

  byId(sessionId: string): SessionItem | undefined {
    return this.rows.find((session) => session.sessionId === sessionId);
  }

  /** A usage the server sent: the listed row whose figures it changes (to redraw), or undefined (not listed, or the
   * same figures). */
  usage(sessionId: string, usage: Usage): SessionItem | undefined {
    const row = this.byId(sessionId);
    if (row === undefined) {
      return undefined;
    }
    const before = this.shown(row);
    this.since.set(sessionId, usage);
    return before.tokens === usage.total && before.usage.contextWindow === usage.contextWindow ? undefined : row;
  }

  /** A row as the view shows it: as listed, with the figures of the last usage sent since. */
  shown(session: SessionItem): SessionItem {
    const usage = this.since.get(session.sessionId);
    return usage === undefined ? session : { ...session, tokens: usage.total, usage };
  }
}

/** The most recently updated session (compact/sessions is sorted already; this does not rely on it). */
export function mostRecentSession(sessions: readonly SessionInfo[]): SessionInfo | undefined {
  let best: SessionInfo | undefined;
  for (const session of sessions) {
    if (best === undefined || Date.parse(session.updatedAt) > Date.parse(best.updatedAt)) {
      best = session;
    }
  }
  return best;
}

/** "3 min ago", "yesterday", "2 Dec". */
export function relativeTime(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) {
    return "";
  }
  const minutes = Math.round((now.getTime() - then) / 60_000);
  if (minutes < 1) {
    return "just now";
  }
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  if (hours < 48) {
    return "yesterday";
  }
  return new Date(then).toLocaleDateString("en-GB", { day: "numeric", month: "short" });
}

/** Agents' names by a session's source, for a server that does not send `owner` yet. */
const AGENTS: Readonly<Record<string, string>> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  "qwen-code": "Qwen Code",
  "gemini-cli": "Gemini CLI",
};

/** The agent that owns a read-only session, in its own words (the server's `owner`); undefined for the user's own. */
export function sessionOwner(session: SessionItem): string | undefined {
  if (session.readOnly !== true) {
    return undefined;
  }
  return session.owner ?? AGENTS[session.source ?? ""] ?? "another program";
}

/**
 * Where a copy the user can work on came from: "imported from Codex" (the server's importedFrom: the agent whose
 * earlier answers it holds, as Neovim labels them), "imported" when the server does not say; "" for any other session.
 */
export function sessionOrigin(session: SessionItem): string {
  if (session.importedFrom !== undefined) {
    return `imported from ${session.importedFrom}`;
  }
  return session.source === "import" ? "imported" : "";
}

/** The chat's header: the title, then "(read-only)" on an agent's session or where an imported copy came from. */
export function chatDescription(title: string, owner: string | undefined, importedFrom: string | undefined): string {
  if (owner !== undefined) {
    return `${title} (read-only)`;
  }
  return importedFrom !== undefined ? `${title} (imported from ${importedFrom})` : title;
}

/** The tree item's grey text: "current · 35.8k · 3 min ago · imported from Codex". */
export function sessionDescription(session: SessionItem, current: boolean, now: Date): string {
  const tokens = session.tokens ?? session.usage?.total;
  return [
    current ? "current" : "",
    tokens !== undefined ? formatTokens(tokens) : "",
    relativeTime(session.updatedAt, now),
    sessionOrigin(session),
    sessionOwner(session) ?? "",
    session.readOnly === true ? "read-only" : "",
    session.damaged === true ? "damaged" : "",
  ]
    .filter((part) => part !== "")
    .join(" · ");
}

export function sessionTooltip(session: SessionItem, current: boolean): string {
  const lines = [`**${escapeMarkdown(session.title || session.sessionId)}**${current ? " (current)" : ""}`, ""];
  lines.push(`Session \`${session.sessionId}\``);
  if (session.messages !== undefined) {
    lines.push(`${session.messages} messages`);
  }
  const tokens = session.tokens ?? session.usage?.total;
  if (tokens !== undefined) {
    lines.push(`${formatTokens(tokens)} tokens in the context`);
  }
  if (session.source !== undefined) {
    lines.push(`Source: ${session.source}`);
  }
  if (session.importedFrom !== undefined) {
    lines.push(`Imported from ${escapeMarkdown(session.importedFrom)}: your copy to work on; its earlier answers are ${escapeMarkdown(session.importedFrom)}'s.`);
  }
  if (session.readOnly === true) {
    const owner = sessionOwner(session) ?? "another program";
    lines.push(
      `${owner}'s session, read-only here: ${owner} owns its context. Open it to watch it grow; Import to continue (in the chat) makes a copy you can work on.`,
    );
  }
  if (session.damaged === true) {
    lines.push("Its journal is damaged: it was read up to the last good record.");
  }
  return lines.join("  \n");
}

/** The longest title compact/renameSession accepts (docs/protocol.md), once surrounding whitespace is dropped. */
export const TITLE_MAX_CHARS = 200;

/**
 * Why the rename box's text is not a title the server accepts, or undefined when it is: the same rule as
 * compact/renameSession (not blank, at most 200 characters, one line without control characters).
 */
export function titleProblem(input: string): string | undefined {
  const title = input.trim();
  if (title === "") {
    return "Type a title.";
  }
  if ([...title].length > TITLE_MAX_CHARS) {
    return `At most ${TITLE_MAX_CHARS} characters (this has ${[...title].length}).`;
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(title)) {
    return "One line, without control characters.";
  }
  return undefined;
}

/** compact/renameSession's params for what the user typed, or undefined when it is not a title or did not change. */
export function renameParams(session: SessionItem, input: string): { sessionId: string; title: string } | undefined {
  const title = input.trim();
  if (titleProblem(input) !== undefined || title === session.title) {
    return undefined;
  }
  return { sessionId: session.sessionId, title };
}

/** The tree item's contextValue: the package.json menus offer Rename only on sessions that are not read-only. */
export function sessionContextValue(session: SessionItem, current: boolean): string {
  return `session${current ? ".current" : ""}${session.readOnly === true ? ".readOnly" : ""}`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, "\\$&");
}

/** The tree item's icon: the current session, a read-only one (Claude Code's), a damaged one, any other. */
export function sessionIcon(session: SessionItem, current: boolean): string {
  if (current) {
    return session.readOnly === true ? "eye" : "comment-discussion";
  }
  if (session.readOnly === true) {
    return "lock";
  }
  return session.damaged === true ? "warning" : "comment";
}

/** A quick-pick row: the title; its size and age; where it comes from (never a raw id, unless it has no title). */
export function pickerItem(session: SessionItem, current: boolean, now: Date): { label: string; description: string; detail?: string } {
  const tokens = session.tokens ?? session.usage?.total;
  const description = [
    current ? "current" : "",
    tokens !== undefined ? `${formatTokens(tokens)} tokens` : "",
    session.messages !== undefined ? `${session.messages} messages` : "",
    relativeTime(session.updatedAt, now),
  ]
    .filter((part) => part !== "")
    .join(" · ");
  const owner = sessionOwner(session);
  const origin = owner !== undefined ? `${owner}, read-only` : sessionOrigin(session);
  const item: { label: string; description: string; detail?: string } = {
    label: `$(${sessionIcon(session, current)}) ${session.title || "Untitled session"}`,
    description,
  };
  if (origin !== "" || session.damaged === true) {
    item.detail = [origin, session.damaged === true ? "damaged: read up to the last good record" : ""].filter(Boolean).join(" · ");
  }
  return item;
}
