// How a compaction reads to a person, the same in a toast and in the chat's marker: which summariser wrote the
// summary and, when the model failed and the offline summariser stood in, why.
import type { TimelineResult, TimelineRow } from "../protocol";
import { formatReduction, formatTokens } from "./usageFormat";

export interface SummaryFacts {
  summarizer?: string;
  fallback?: boolean;
  fallbackReason?: string | null;
}

const SUMMARIZERS: Record<string, string> = {
  anthropic: "summary by the model",
  offline: "offline summary (no model call)",
  "session-memory": "summary from the session notes (no model call)",
  agent: "the agent's own summary",
};

/** "summary by the model" · "offline summary, because the model failed: overloaded: 529". */
export function describeSummarizer(facts: SummaryFacts): string {
  if (facts.fallback === true) {
    const reason = facts.fallbackReason?.trim().replace(/\.+$/, "");
    return `offline summary, because the model failed${reason ? `: ${reason}` : ""}`;
  }
  if (facts.summarizer === undefined || facts.summarizer === "") {
    return "";
  }
  return SUMMARIZERS[facts.summarizer] ?? `summary by ${facts.summarizer}`;
}

const TRIGGERS: Record<string, string> = {
  manual: "",
  auto: "automatically",
  idle: "after an idle pause",
  size: "on size",
  forced: "forced",
};

/** "automatically", "" for manual; unknown triggers are shown as they are. */
export function describeTrigger(trigger: string): string {
  return TRIGGERS[trigger] ?? trigger;
}

export interface MarkerFacts extends SummaryFacts {
  compaction: "full" | "micro" | "undo";
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  cleared?: number;
}

/** The one line a compaction marker shows in the chat. */
export function describeMarker(marker: MarkerFacts): string {
  const how = describeTrigger(marker.trigger);
  const reduction = formatReduction(marker.tokensBefore, marker.tokensAfter);
  if (marker.compaction === "undo") {
    return marker.tokensAfter > 0 ? `Compaction undone: ${reduction}` : "Compaction undone";
  }
  if (marker.compaction === "micro") {
    const what =
      marker.cleared === undefined
        ? "Old tool results cleared"
        : `${marker.cleared} old tool result${marker.cleared === 1 ? "" : "s"} cleared`;
    return `${what}${how !== "" ? ` (${how})` : ""}: ${reduction}`;
  }
  const summary = describeSummarizer(marker);
  if (marker.summarizer === "agent") {
    // the agent's own compaction: its trigger and figures when its log recorded them (a followed session, or the
    // last compaction of an imported copy); a copy imported by an older version knows neither (null): none made up
    if (marker.tokensBefore <= 0 || marker.tokensAfter <= 0) {
      return "Conversation compacted by the agent · its own summary";
    }
    // a compaction the user typed in the agent (/compact, /compress) says so, as Neovim's marker does
    const agentHow = marker.trigger === "manual" ? "when asked" : how;
    return `Conversation compacted by the agent${agentHow !== "" ? ` ${agentHow}` : ""}: ${reduction} · its own summary`;
  }
  return `Conversation compacted${how !== "" ? ` ${how}` : ""}: ${reduction}${summary !== "" ? ` · ${summary}` : ""}`;
}

/** The scheme of a compaction's summary opened read-only (a virtual document: never dirty, never asks to save). */
export const SUMMARY_SCHEME = "compact-summary";

/** Where the summary of a session's `index`th compaction opens: `compact-summary:/<session>/<index>/Summary.md`. */
export function summaryPath(sessionId: string, index: number): string {
  return `/${encodeURIComponent(sessionId)}/${index}/Summary of compaction ${index + 1}.md`;
}

/** How the timeline links a row to its whole summary (a link the editor opens at `summaryPath`'s address). */
export function summaryLink(sessionId: string, index: number): string {
  return `${SUMMARY_SCHEME}:/${encodeURIComponent(sessionId)}/${index}/summary`;
}

/** The session and compaction index a summary document's path names, or undefined for any other path. */
export function parseSummaryPath(path: string): { sessionId: string; index: number } | undefined {
  const match = /^\/([^/]+)\/(\d+)\/[^/]*$/.exec(path);
  if (match === null) {
    return undefined;
  }
  return { sessionId: decodeURIComponent(match[1]), index: Number(match[2]) };
}

/** The text of a summary document: what it is, then the summary the model read instead of the earlier messages. */
export function summaryDocumentText(summary: string | undefined): string {
  if (summary === undefined || summary === "") {
    return "# Summary of this compaction\n\nThis compaction's summary is not stored with the session.\n";
  }
  return `# Summary of the conversation before this compaction\n\nWhat the model read instead of the earlier messages.\n\n${summary}\n`;
}

/** The summary of each compaction in a transcript's entries, in order (undefined where the journal has none). */
export function compactionSummaries(entries: unknown[]): (string | undefined)[] {
  return entries
    .filter(
      (entry): entry is { kind: "compaction"; summary?: string | null } =>
        typeof entry === "object" && entry !== null && (entry as { kind?: unknown }).kind === "compaction",
    )
    .map((entry) => (typeof entry.summary === "string" && entry.summary !== "" ? entry.summary : undefined));
}

/** Where a session's compaction timeline opens read-only: `compact-summary:/timeline/<session>/Compaction timeline.md`. */
export function timelinePath(sessionId: string): string {
  return `/timeline/${encodeURIComponent(sessionId)}/Compaction timeline.md`;
}

/** The session a timeline document's path names, or undefined for any other path. */
export function parseTimelinePath(path: string): string | undefined {
  const match = /^\/timeline\/([^/]+)\/[^/]*$/.exec(path);
  return match === null ? undefined : decodeURIComponent(match[1]);
}

const AGENTS: Record<string, string> = {
  "compact-lsp": "Compact",
  "claude-code": "Claude Code",
  codex: "Codex",
  "qwen-code": "Qwen Code",
  "gemini-cli": "Gemini CLI",
};
const KINDS: Record<string, string> = { full: "Compacted", micro: "Cleared old tool results", undo: "Compaction undone" };

/** Where a cleared tool result opens read-only: `compact-summary:/result/<session>/<tool use id>/<name>`. */
export function resultPath(sessionId: string, toolUseId: string, name: string): string {
  const file = name.replace(/[/\\()\s]/g, "_") || "result";
  return `/result/${encodeURIComponent(sessionId)}/${encodeURIComponent(toolUseId)}/${file}`;
}

/** The session and tool use a cleared result's document path names, or undefined for any other path. */
export function parseResultPath(path: string): { sessionId: string; toolUseId: string } | undefined {
  const match = /^\/result\/([^/]+)\/([^/]+)\/[^/]*$/.exec(path);
  return match === null ? undefined : { sessionId: decodeURIComponent(match[1]), toolUseId: decodeURIComponent(match[2]) };
}

/** The text of a cleared result's document: what the tool returned before it was cleared, from the transcript's
 * entries (the journal keeps every message as it was). */
export function resultDocumentText(entries: unknown[], toolUseId: string): string {
  for (const entry of entries) {
    const { kind, message } = entry as { kind?: unknown; message?: { content?: unknown } };
    if (kind !== "message" || !Array.isArray(message?.content)) {
      continue;
    }
    for (const block of message.content as { type?: unknown; tool_use_id?: unknown; content?: unknown }[]) {
      if (block.type === "tool_result" && block.tool_use_id === toolUseId) {
        if (typeof block.content === "string") {
          return block.content;
        }
        const parts = Array.isArray(block.content) ? (block.content as { text?: unknown }[]) : [];
        return parts.map((part) => (typeof part.text === "string" ? part.text : "")).join("\n");
      }
    }
  }
  return "This result is no longer in the session's history.";
}

function rowMarkdown(row: TimelineRow, threshold: number | null, sessionId: string): string[] {
  const when = typeof row.at === "string" ? row.at.replace(/^(\d+-\d+-\d+)T(\d+:\d+).*$/, "$1 $2 UTC") : "time not recorded";
  const figures =
    typeof row.tokensBefore === "number" && typeof row.tokensAfter === "number"
      ? `: ${formatReduction(row.tokensBefore, row.tokensAfter)}`
      : "";
  const fired =
    row.trigger === "auto" && typeof row.tokensBefore === "number" && threshold !== null
      ? ` (fired at ${formatTokens(row.tokensBefore)}, threshold ${formatTokens(threshold)})`
      : "";
  const lines = [`## ${KINDS[row.kind] ?? row.kind} (${row.trigger})${figures}${fired}`, "", `*${when}*`, ""];
  if (typeof row.summary === "string" && row.summary !== "") {
    const quoted = row.summary.trim().split("\n").slice(0, 12).map((line) => `> ${line}`);
    lines.push("Summary the model read instead:", "", ...quoted, "");
  }
  if (typeof row.summaryIndex === "number") {
    lines.push(`The whole summary, read-only (Ctrl+click): ${summaryLink(sessionId, row.summaryIndex)}`, "");
  }
  if (row.cleared !== undefined && row.cleared.length > 0) {
    const cleared = row.cleared.map((c) => {
      const name = c.path ?? c.tool ?? c.toolUseId;
      const tokens = c.tokens !== undefined ? ` (${formatTokens(c.tokens)} tokens)` : "";
      return `- ${name}${tokens}: ${SUMMARY_SCHEME}:${resultPath(sessionId, c.toolUseId, name)}`;
    });
    lines.push("Cleared (Ctrl+click a link to read what the tool returned):", "", ...cleared, "");
  }
  if (row.reattached !== undefined && row.reattached.length > 0) {
    lines.push("Re-attached by the agent itself:", "", ...row.reattached.map((path) => `- ${path}`), "");
  }
  for (const receipt of row.receipts ?? []) {
    const how = receipt.spilled ? "spilled to a file, a preview in the context" : "inline";
    const files = receipt.files !== undefined && receipt.files.length > 0 ? `, files ${receipt.files.join(", ")}` : ", no file content";
    lines.push(`Hook delivered (${receipt.hook}, as the transcript recorded it): ${receipt.characters} characters, ${how}${files}.`, "");
  }
  if (row.kept !== undefined && row.kept.length > 0) {
    lines.push(`Kept by the agent besides the summary: ${row.kept.length} message${row.kept.length === 1 ? "" : "s"}.`, "");
  }
  return lines;
}

/** A compaction timeline as a read-only Markdown document: one section per compaction, oldest first. */
export function timelineMarkdown(timeline: TimelineResult): string {
  const who = AGENTS[timeline.agent] ?? timeline.agent;
  const count = timeline.rows.length;
  const off = timeline.disabledBy !== undefined && timeline.disabledBy !== null;
  const threshold = off ? null : timeline.thresholdTokens;
  const head = [
    `# Compaction timeline`,
    "",
    `${count} compaction${count === 1 ? "" : "s"} by ${who}${threshold !== null ? ` · automatic at ${formatTokens(threshold)} tokens` : ""}.`,
    "",
  ];
  if (off) {
    head.push(`Automatic compaction is off: ${timeline.disabledBy}.`, "");
  }
  if (count === 0) {
    head.push("No compaction yet in this session.", "");
  }
  return [...head, ...timeline.rows.flatMap((row) => rowMarkdown(row, threshold, timeline.sessionId))].join("\n");
}
