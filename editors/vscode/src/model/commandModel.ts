// Arguments for the server's workspace/executeCommand commands and the messages shown after they run.
import type { CompactResult, MicrocompactResult, UndoResult } from "../protocol";
import { ServerCommands } from "../protocol";
import { OPEN_ELSEWHERE_TEXT } from "./chatPage";
import { describeSummarizer } from "./compactionText";
import { formatReduction, formatTokens } from "./usageFormat";

/** What a command tells the user: outcomes are information, a fallback is a warning, failures are errors. */
export interface Outcome {
  severity: "info" | "warning" | "error";
  text: string;
  /** Buttons, in order. */
  actions?: OutcomeAction[];
  /** The setting "Open Settings" opens. */
  setting?: string;
}

export type OutcomeAction = "Show Server Log" | "Set API Key" | "Open Settings" | "Microcompact Now" | "Restart Server";

/** Result fields of outcomes that change nothing (newer servers answer these instead of an error). */
interface NoChange {
  cancelled?: boolean;
  changed?: boolean;
  kind?: string;
  reason?: string;
}

/**
 * An outcome result that changed nothing (docs/protocol.md, "Outcomes are results"): "Compaction cancelled.", or
 * the server's reason ("There is no compaction to undo in this session.").
 */
/** An outcome's text as a toast says it: after the product's name, unless the text already starts with it
 * ("Compact: …", "Compact's …"); "Compaction cancelled." is no such start. */
export function toastText(text: string): string {
  return /^Compact(:|'s\b)/.test(text) ? text : `Compact: ${text}`;
}

export function noChangeOutcome(result: unknown, what: string): Outcome | undefined {
  const r = (typeof result === "object" && result !== null ? result : {}) as NoChange;
  if (r.cancelled === true || r.kind === "cancelled") {
    return { severity: "info", text: `${what} cancelled.` };
  }
  if (r.changed === false && r.kind === "not_smaller") {
    return { severity: "info", text: notSmaller(r.reason), actions: ["Microcompact Now"] };
  }
  if (r.changed === false) {
    const reason = typeof r.reason === "string" && r.reason.trim() !== "" ? r.reason.trim() : `${what}: nothing changed.`;
    return { severity: "info", text: reason };
  }
  return undefined;
}

/**
 * A compaction refused as not smaller, in plain words with the figures as everywhere (26.2k) and the way forward:
 * clearing old tool results costs no summary; a full compaction pays off once the conversation has grown.
 */
export function notSmaller(reason: unknown): string {
  const text = typeof reason === "string" ? reason : "";
  const after = /compacted context \((\d+)/.exec(text)?.[1];
  const before = /current one \((\d+) tokens\)/.exec(text)?.[1] ?? /get down to (\d+) tokens/.exec(text)?.[1];
  const figures =
    after !== undefined && before !== undefined
      ? ` (${formatTokens(Number(after))} tokens after, against ${formatTokens(Number(before))} now)`
      : "";
  return (
    `Not compacted: a summary would not make the conversation smaller${figures}, so nothing changed. ` +
    "Microcompact Now clears old tool results instead; a full compaction pays off once the conversation has grown."
  );
}

const OUTCOME_KINDS: Record<string, (what: string) => string> = {
  cancelled: (what) => `${what} cancelled.`,
  nothing_to_undo: () => "Nothing to undo: there is no compaction to take back.",
  cannot_undo: () => "This compaction cannot be undone any more.",
  not_smaller: () => "Compaction skipped: the summary would not make the context smaller.",
  empty: () => "Nothing to compact yet: the conversation is empty.",
  in_progress: () => "A compaction of this session is already running.",
  restricted: () =>
    "Paused in Restricted Mode: this folder is not trusted. Trust it (Manage Workspace Trust) to use the chat, " +
    "the gauge and compaction.",
};

/** Protocol methods and commands a server message may name, as the user reaches them in VS Code. */
const EDITOR_WORDS: [RegExp, string][] = [
  [/\(?compact\/newSession\)?/g, "New Chat"],
  [/\(?compact\/importSession\)?/g, "Import to continue"],
  [/\(?compact\/sessions\)?/g, "the Sessions view"],
  [/\(?compact\/selectSession\)?/g, "the Sessions view"],
  [/\(?compact\.compact\)?/g, "Compact: Compact Conversation…"],
  [/\(?compact\.microcompact\)?/g, "Compact: Microcompact Now"],
  [/\(?compact\.undo\)?/g, "Compact: Undo Last Compaction"],
  [/compact-lsp claude-code install-hook/g, "Compact: Install the Claude Code Hook"],
  [/set ANTHROPIC_API_KEY for the language server\./g, "Set API Key stores one for Compact; then send your message again."],
];

/**
 * A server message in the editor's own terms: no leading method name ("compact/chat: "), no exception class
 * ("SessionBusy: "), and the methods or CLI commands it names as the commands and buttons that do the same here.
 */
export function plainMessage(message: string): string {
  let text = message.trim();
  for (;;) {
    const stripped = text
      .replace(/^compact[/.][A-Za-z]+:\s*/, "")
      .replace(/^(?:[A-Z][a-z]+){1,4}(?:Error|Exception|Busy|Refused|Code)?:\s+/, (prefix) =>
        /^(?:[A-Z][a-z]+){2,}/.test(prefix) ? "" : prefix,
      );
    if (stripped === text) {
      break;
    }
    text = stripped;
  }
  const stripped = text !== message.trim();
  for (const [pattern, words] of EDITOR_WORDS) {
    text = text.replace(pattern, words);
  }
  return stripped ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/** A refusal because another owner writes the session (an agent: Claude Code, Codex, ...; another window), in VS Code's words. */
function readOnlyText(owner: unknown): string {
  const agent = (owner as { agent?: unknown } | undefined)?.agent;
  if (typeof agent === "string" && agent !== "") {
    return `This is ${agent}'s live session, read-only here: ${agent} owns its context. Click Import to continue in the chat to work on a copy.`;
  }
  // the lock's process id means nothing to the user: the window is what they can find
  return OPEN_ELSEWHERE_TEXT;
}

/** A refusal because another window (another server) writes the session, not an agent. */
export function writtenInAnotherWindow(error: unknown): boolean {
  const data = (error as { data?: { kind?: unknown; owner?: { agent?: unknown } } } | undefined)?.data;
  return data?.kind === "read_only" && typeof data.owner?.agent !== "string";
}

/** A fallback summary offers Set API Key only when the model refused the key, not when it was busy (529). */
export function keyProblem(reason: string | null | undefined): boolean {
  return /api key|x-api-key|authenticat|unauthori[sz]ed|\b401\b|\b403\b|permission/i.test(reason ?? "");
}

/**
 * A failed request as the user should read it. Errors the server marks as outcomes (`data.kind` cancelled,
 * nothing_to_undo, ...) are information; a session owned elsewhere says where to continue; a missing API key
 * offers Set API Key; a bad launch setting offers Open Settings; anything else is an error with the server log at
 * hand. Every text is in the editor's words (plainMessage).
 */
export function failureOutcome(name: string, error: unknown): Outcome {
  const raw = error instanceof Error ? error.message : String(error);
  const message = plainMessage(raw);
  const data = (error as { data?: { kind?: unknown; owner?: unknown } } | undefined)?.data;
  const kind = typeof data?.kind === "string" ? data.kind : undefined;
  if (kind !== undefined && OUTCOME_KINDS[kind] !== undefined) {
    return { severity: "info", text: OUTCOME_KINDS[kind](name) };
  }
  if (kind === "not_started") {
    // the server did not start: its cause says what to fix, whichever command found it out
    const setting = (error as { setting?: unknown }).setting;
    return typeof setting === "string"
      ? { severity: "error", text: raw, actions: ["Open Settings", "Show Server Log", "Restart Server"], setting }
      : { severity: "error", text: raw, actions: ["Show Server Log", "Restart Server"] };
  }
  if (kind === "read_only") {
    return { severity: "info", text: readOnlyText(data?.owner) };
  }
  if (kind === "auth" || /api key/i.test(raw)) {
    return { severity: "error", text: `${name} failed: ${message}`, actions: ["Set API Key", "Show Server Log"] };
  }
  const setting = (error as { setting?: unknown } | undefined)?.setting;
  if (typeof setting === "string") {
    return { severity: "error", text: message, actions: ["Open Settings", "Show Server Log"], setting };
  }
  return { severity: "error", text: `${name} failed: ${message}`, actions: ["Show Server Log"] };
}

export interface ExecuteCommandParams {
  command: string;
  arguments: [Record<string, unknown>];
}

/** One argument object; without a sessionId the server acts on the most recently active session. */
export function executeCommandParams(
  command: string,
  sessionId: string | undefined,
  extra: Record<string, unknown> = {},
): ExecuteCommandParams {
  const argument: Record<string, unknown> = {};
  if (sessionId !== undefined && sessionId !== "") {
    argument.sessionId = sessionId;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) {
      argument[key] = value;
    }
  }
  return { command, arguments: [argument] };
}

/** compact.compact's params: the input box text as `instructions`, left out when blank. */
export function compactParams(sessionId: string | undefined, instructions: string | undefined): ExecuteCommandParams {
  const trimmed = instructions?.trim();
  return executeCommandParams(ServerCommands.compact, sessionId, {
    instructions: trimmed === undefined || trimmed === "" ? undefined : trimmed,
  });
}

export function describeMicrocompact(result: MicrocompactResult): string {
  const unchanged = noChangeOutcome(result, "Microcompaction");
  if (unchanged !== undefined) {
    return unchanged.text;
  }
  const cleared = (result.cleared ?? []).length;
  if (cleared === 0) {
    return `Microcompaction found nothing to clear (${formatTokens(result.tokensAfter)} tokens).`;
  }
  const kept = (result.protected ?? []).length > 0 ? `; kept ${plural(result.protected.length, "managed-memory read")}` : "";
  return (
    `Microcompaction cleared ${plural(cleared, "tool result")}: ` +
    `${formatReduction(result.tokensBefore, result.tokensAfter)}${kept}.`
  );
}

export function describeCompact(result: CompactResult): string {
  if (result.changed === false) {
    return noChangeOutcome(result, "Compaction")?.text ?? "Compaction: nothing changed.";
  }
  const files = (result.rehydrated ?? []).filter((item) => item.kind === "file").length;
  const restored = files > 0 ? `, ${plural(files, "file")} re-attached` : "";
  const summary = describeSummarizer(result as CompactResult & { fallback?: boolean; fallbackReason?: string });
  const by = summary !== "" ? ` ${summary.charAt(0).toUpperCase()}${summary.slice(1)}.` : "";
  return `Conversation compacted: ${formatReduction(result.tokensBefore, result.tokensAfter)}${restored}.${by}`;
}

/** compact.compact's answer: compacted (a warning when the offline summariser stood in), cancelled or unchanged. */
export function compactOutcome(result: CompactResult): Outcome {
  const unchanged = noChangeOutcome(result, "Compaction");
  if (unchanged !== undefined) {
    return unchanged;
  }
  const facts = result as { fallback?: boolean; fallbackReason?: string | null };
  const fallback = facts.fallback === true;
  return {
    severity: fallback ? "warning" : "info",
    text: describeCompact(result),
    actions: fallback ? fallbackActions(facts.fallbackReason) : undefined,
  };
}

/** A fallback's buttons: Set API Key only when the key was the problem (an overloaded API is not). */
export function fallbackActions(reason: string | null | undefined): OutcomeAction[] {
  return keyProblem(reason) ? ["Set API Key", "Show Server Log"] : ["Show Server Log"];
}

export function describeUndo(result: UndoResult): string {
  if (result.changed === false) {
    return noChangeOutcome(result, "Undo")?.text ?? "Undo: nothing changed.";
  }
  return `Compaction undone: the conversation is back to ${formatTokens(result.tokensAfter)} tokens.`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
