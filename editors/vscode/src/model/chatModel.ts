// The chat transcript as the webview draws it, built from compact/chatEvent notifications. Pure and immutable:
// each event gives a new transcript, so the view can be redrawn from any state.
import { diffLines } from "diff";
import type { ChatEvent, ChatResult } from "../protocol";
import type { ApprovalDiff } from "./approvalDiff";
import { formatUsage } from "./usageFormat";

/** The answer to a permission prompt: a button's title, or dismissed (a denial). */
export type ApprovalState = "pending" | "Allow once" | "Allow for this session" | "Deny" | "dismissed";

/** A compaction boundary or microcompaction clearing, drawn as a marker line in the transcript. */
export interface CompactionMarker {
  kind: "marker";
  compaction: "full" | "micro" | "undo";
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  summarizer?: string;
  fallback?: boolean;
  fallbackReason?: string;
  /** Tool results a microcompaction cleared. */
  cleared?: number;
}

export type ChatEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | {
      kind: "tool";
      id: string;
      name: string;
      summary: string;
      state: "running" | "done" | "error";
      result: string;
      /** The tool's input, kept for "Show diff" on a permission prompt. */
      input?: unknown;
    }
  | {
      kind: "approval";
      id: string;
      prompt: string;
      tool: string;
      toolUseId: string;
      input: unknown;
      state: ApprovalState;
      /** The proposed change as a unified diff (edit_file/write_file), once the file was read. */
      diff?: ApprovalDiff;
    }
  | CompactionMarker
  | { kind: "error"; text: string; /** A command that helps (Set API Key). */ action?: "compact.setApiKey" }
  | { kind: "notice"; text: string }
  | EditedFile;

/** An approved edit that changed a file: a row naming it with its lines added/removed, opening it at the change. */
export interface EditedFile {
  kind: "edited";
  path: string;
  added: number;
  removed: number;
  /** The first changed line in the file after the edit (0: not known, the row opens the file). */
  line: number;
}

export interface ChatTranscript {
  entries: ChatEntry[];
  /** The latest status line while a turn runs ("Compacting…", "Waiting for the model…"). */
  status: string | undefined;
  busy: boolean;
}

export const EMPTY_TRANSCRIPT: ChatTranscript = { entries: [], status: undefined, busy: false };

const PREVIEW_CHARS = 400;
const PREVIEW_LINES = 6;

export function startTurn(transcript: ChatTranscript, text: string): ChatTranscript {
  return { entries: [...transcript.entries, { kind: "user", text }], status: undefined, busy: true };
}

/**
 * The server refused the turn before it began (another window writes the session): the message is taken back out of
 * the chat, as it was never sent (the input gets it again), and `notice` says why.
 */
export function refuseTurn(transcript: ChatTranscript, notice: string): ChatTranscript {
  const entries = transcript.entries.slice();
  const sent = entries.findLastIndex((entry) => entry.kind === "user");
  if (sent >= 0) {
    entries.splice(sent, 1);
  }
  return { entries: [...entries, { kind: "notice", text: notice }], status: undefined, busy: false };
}

export function applyChatEvent(transcript: ChatTranscript, event: ChatEvent): ChatTranscript {
  const entries = transcript.entries.slice();
  switch (event.kind) {
    case "text": {
      const delta = stringField(event, "text", "delta");
      const last = entries[entries.length - 1];
      if (last !== undefined && last.kind === "assistant") {
        entries[entries.length - 1] = { kind: "assistant", text: last.text + delta };
      } else {
        entries.push({ kind: "assistant", text: delta });
      }
      return { ...transcript, entries };
    }
    case "tool_use": {
      const id = stringField(event, "id", "toolUseId");
      const name = stringField(event, "name", "tool") || "tool";
      const tool: ChatEntry = { kind: "tool", id, name, summary: summariseInput(event.input), state: "running", result: "" };
      if (event.input !== undefined) {
        tool.input = event.input;
      }
      entries.push(tool);
      return { ...transcript, entries };
    }
    case "tool_result": {
      const id = stringField(event, "toolUseId", "id");
      const index = findToolEntry(entries, id);
      const result = preview(contentText(event.content));
      const state = event.isError === true ? "error" : "done";
      if (index >= 0) {
        const entry = entries[index] as Extract<ChatEntry, { kind: "tool" }>;
        entries[index] = { ...entry, state, result };
      } else {
        entries.push({ kind: "tool", id, name: stringField(event, "name") || "tool", summary: "", state, result });
      }
      const tool = index >= 0 ? (entries[index] as Extract<ChatEntry, { kind: "tool" }>) : undefined;
      const edited = state === "done" ? (editedFile(entries, id) ?? editedByInput(tool?.name, tool?.input)) : undefined;
      if (edited !== undefined) {
        entries.push(edited);
      }
      return { ...transcript, entries };
    }
    case "status":
      return { ...transcript, status: stringField(event, "text", "message", "status") || undefined };
    case "error":
      entries.push({ kind: "error", text: stringField(event, "message", "text") || "The agent stopped with an error." });
      return { ...transcript, entries };
    default:
      return transcript;
  }
}

/**
 * A permission prompt arrived while this chat's turn runs: it belongs to the tool call the agent just announced
 * (tool_use is sent before the tool runs, and the tool asks before it writes).
 */
export function requestApproval(transcript: ChatTranscript, id: string, prompt: string): ChatTranscript {
  const running = transcript.entries.findLast(
    (entry): entry is Extract<ChatEntry, { kind: "tool" }> => entry.kind === "tool" && entry.state === "running",
  );
  const entry: ChatEntry = {
    kind: "approval",
    id,
    prompt,
    tool: running?.name ?? "",
    toolUseId: running?.id ?? "",
    input: running?.input,
    state: "pending",
  };
  return { ...transcript, entries: [...transcript.entries, entry] };
}

export function resolveApproval(transcript: ChatTranscript, id: string, state: ApprovalState): ChatTranscript {
  return {
    ...transcript,
    entries: transcript.entries.map((entry) =>
      entry.kind === "approval" && entry.id === id && entry.state === "pending" ? { ...entry, state } : entry,
    ),
  };
}

export function attachDiff(transcript: ChatTranscript, id: string, diff: ApprovalDiff): ChatTranscript {
  return {
    ...transcript,
    entries: transcript.entries.map((entry) => (entry.kind === "approval" && entry.id === id ? { ...entry, diff } : entry)),
  };
}

export function pendingApproval(transcript: ChatTranscript): Extract<ChatEntry, { kind: "approval" }> | undefined {
  return transcript.entries.find(
    (entry): entry is Extract<ChatEntry, { kind: "approval" }> => entry.kind === "approval" && entry.state === "pending",
  );
}

export function addMarker(transcript: ChatTranscript, marker: CompactionMarker): ChatTranscript {
  return { ...transcript, entries: [...transcript.entries, marker] };
}

/**
 * What the chat says after the user stops a turn: an outcome, not an error. The server keeps the user's message and
 * the results of the tools that finished, and drops the unfinished answer (agent/loop.py).
 */
export const CANCELLED_TEXT = "Cancelled: you stopped the agent. Your message and what its tools finished stay in the conversation.";

/** The user stopped the turn (Stop, Escape): said as a notice, never as a failure. */
export function cancelTurn(transcript: ChatTranscript): ChatTranscript {
  return endTurn(transcript, { stopReason: "cancelled" });
}

/** The turn ended (the compact/chat request returned): tools still "running" never got a result. */
export function endTurn(
  transcript: ChatTranscript,
  result: (Pick<ChatResult, "stopReason" | "error"> & Partial<Pick<ChatResult, "usage">>) | undefined,
  failure?: string,
): ChatTranscript {
  const entries: ChatEntry[] = transcript.entries.map((entry) =>
    entry.kind === "tool" && entry.state === "running"
      ? { ...entry, state: "error", result: "(no result)" }
      : entry.kind === "approval" && entry.state === "pending"
        ? { ...entry, state: "dismissed" }
        : entry,
  );
  if (failure !== undefined) {
    entries.push({ kind: "error", text: failure });
  } else if (result?.stopReason === "error") {
    // The error event usually said why already; the result repeats it for clients that missed it.
    const said = entries.some((entry) => entry.kind === "error");
    if (!said) {
      entries.push({ kind: "error", text: result.error ?? "The agent stopped with an error." });
    }
  } else if (result?.stopReason === "cancelled") {
    entries.push({ kind: "notice", text: CANCELLED_TEXT });
  } else if (result !== undefined && result.stopReason !== "end_turn") {
    entries.push({ kind: "notice", text: `Stopped: ${result.stopReason.replace(/_/g, " ")}.` });
  }
  if (result?.usage !== undefined) {
    entries.push({ kind: "notice", text: `Context: ${formatUsage(result.usage)}` });
  }
  return { entries, status: undefined, busy: false };
}

/** The "Edited file +N −M" row of a tool call that succeeded after the user allowed its previewed change. */
export function editedFile(entries: readonly ChatEntry[], toolUseId: string): EditedFile | undefined {
  const approval = entries.findLast(
    (entry): entry is Extract<ChatEntry, { kind: "approval" }> => entry.kind === "approval" && entry.toolUseId === toolUseId,
  );
  const allowed = approval?.state === "Allow once" || approval?.state === "Allow for this session";
  const diff = approval?.diff;
  const path = (approval?.input as { file_path?: unknown } | undefined)?.file_path;
  if (!allowed || diff === undefined || diff.problem !== undefined || typeof path !== "string" || path === "") {
    return undefined;
  }
  if (diff.added === 0 && diff.removed === 0) {
    return undefined; // nothing changed: nothing to go back to
  }
  return { kind: "edited", path, added: diff.added, removed: diff.removed, line: firstChangedLine(diff.lines) };
}

/**
 * The row of a successful edit_file with no previewed diff (allowed for the session, or restored after a reload):
 * its lines from old_string → new_string; where in the file is not known then (line 0: the row opens the file).
 */
export function editedByInput(tool: string | undefined, input: unknown): EditedFile | undefined {
  const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  const { file_path: path, old_string: before, new_string: after } = args;
  if (tool !== "edit_file" || typeof path !== "string" || path === "" || typeof before !== "string" || typeof after !== "string") {
    return undefined;
  }
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    added += part.added ? part.count : 0;
    removed += part.removed ? part.count : 0;
  }
  return added === 0 && removed === 0 ? undefined : { kind: "edited", path, added, removed, line: 0 };
}

/** The line of the first `+`/`-` in the file after the change, from its hunk header (`@@ -a,b +c,d @@`). */
function firstChangedLine(lines: readonly string[]): number {
  let line = 1;
  for (const text of lines) {
    const header = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(text);
    if (header !== null) {
      line = Math.max(1, Number(header[1]));
    } else if (text.startsWith("+") || text.startsWith("-")) {
      return line;
    } else {
      line += 1;
    }
  }
  return line;
}

function findToolEntry(entries: ChatEntry[], id: string): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.kind === "tool" && (id === "" ? entry.state === "running" : entry.id === id)) {
      return i;
    }
  }
  return -1;
}

function stringField(event: ChatEvent, ...names: string[]): string {
  const fields: Record<string, unknown> = { ...event };
  for (const name of names) {
    const value = fields[name];
    if (typeof value === "string") {
      return value;
    }
  }
  return "";
}

/** read_file {file_path: "a.py"} → "a.py"; otherwise compact JSON, shortened. */
export function summariseInput(input: unknown): string {
  if (input === undefined || input === null) {
    return "";
  }
  if (typeof input === "object" && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    if (typeof record.pattern === "string") {
      // grep/glob: what is looked for first, then where
      const where = typeof record.path === "string" && record.path !== "" ? ` in ${record.path}` : "";
      return shorten(`${record.pattern}${where}`, 120);
    }
    for (const key of ["file_path", "path", "command"]) {
      if (typeof record[key] === "string") {
        return shorten(record[key] as string, 120);
      }
    }
  }
  return shorten(JSON.stringify(input), 120);
}

function contentText(content: unknown): string {
  if (typeof content === "string") {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((block) =>
        typeof block === "object" && block !== null && typeof (block as { text?: unknown }).text === "string"
          ? (block as { text: string }).text
          : "",
      )
      .join("\n");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

/** The first lines of a tool result: enough to recognise it, not a wall of file content. */
function preview(text: string): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  if (lines.length <= PREVIEW_LINES) {
    return shorten(text, PREVIEW_CHARS);
  }
  const rest = lines.length - PREVIEW_LINES;
  return `${shorten(lines.slice(0, PREVIEW_LINES).join("\n"), PREVIEW_CHARS)}\n… ${rest} more line${rest === 1 ? "" : "s"}`;
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
