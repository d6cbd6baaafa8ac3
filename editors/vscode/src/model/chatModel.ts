// The chat transcript as the webview draws it, built from compact/chatEvent notifications. Pure and immutable:
// each event gives a new transcript, so the view can be redrawn from any state.
import type { ChatEvent, ChatResult } from "../protocol";
import { formatUsage } from "./usageFormat";

export type ChatEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | { kind: "tool"; id: string; name: string; summary: string; state: "running" | "done" | "error"; result: string }
  | { kind: "error"; text: string }
  | { kind: "notice"; text: string };

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
      entries.push({ kind: "tool", id, name, summary: summariseInput(event.input), state: "running", result: "" });
      return { ...transcript, entries };
    }
    case "tool_result": {
      const id = stringField(event, "toolUseId", "id");
      const index = findToolEntry(entries, id);
      const result = preview(contentText(event.content ?? event.text ?? event.message));
      const state = event.isError === true || event.is_error === true ? "error" : "done";
      if (index >= 0) {
        const entry = entries[index] as Extract<ChatEntry, { kind: "tool" }>;
        entries[index] = { ...entry, state, result };
      } else {
        entries.push({ kind: "tool", id, name: stringField(event, "name") || "tool", summary: "", state, result });
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

/** The turn ended (the compact/chat request returned): tools still "running" never got a result. */
export function endTurn(transcript: ChatTranscript, result: ChatResult | undefined, failure?: string): ChatTranscript {
  const entries: ChatEntry[] = transcript.entries.map((entry) =>
    entry.kind === "tool" && entry.state === "running" ? { ...entry, state: "error", result: "(no result)" } : entry,
  );
  if (failure !== undefined) {
    entries.push({ kind: "error", text: failure });
  } else if (result?.stopReason === "error") {
    // The error event usually said why already; the result repeats it for clients that missed it.
    const said = entries.some((entry) => entry.kind === "error");
    if (!said) {
      entries.push({ kind: "error", text: result.error ?? "The agent stopped with an error." });
    }
  } else if (result !== undefined && result.stopReason !== "end_turn") {
    entries.push({ kind: "notice", text: `Stopped: ${result.stopReason.replace(/_/g, " ")}.` });
  }
  if (result?.usage !== undefined) {
    entries.push({ kind: "notice", text: `Context: ${formatUsage(result.usage)}` });
  }
  return { entries, status: undefined, busy: false };
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
  for (const name of names) {
    const value = event[name];
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
    for (const key of ["file_path", "path", "pattern", "command"]) {
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
