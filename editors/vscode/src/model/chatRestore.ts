// A stored session back into chat entries (after a reload, or when switching sessions): the messages as the chat
// showed them, with compaction boundaries and microcompaction clearings as markers. Pure.
import type { Block, Message } from "../protocol";
import type { ChatEntry, ChatTranscript, CompactionMarker } from "./chatModel";
import { editedByInput, summariseInput } from "./chatModel";

const PREVIEW_CHARS = 400;
const PREVIEW_LINES = 6;

function blocks(content: Message["content"]): Block[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
}

function resultText(content: unknown): string {
  if (typeof content === "string") {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((block) => (typeof (block as { text?: unknown }).text === "string" ? (block as { text: string }).text : ""))
      .join("\n");
  }
  return "";
}

function preview(text: string): string {
  const lines = text.replace(/\s+$/, "").split("\n");
  const head = lines.slice(0, PREVIEW_LINES).join("\n");
  const short = head.length > PREVIEW_CHARS ? `${head.slice(0, PREVIEW_CHARS - 1)}…` : head;
  const rest = lines.length - PREVIEW_LINES;
  return rest > 0 ? `${short}\n… ${rest} more line${rest === 1 ? "" : "s"}` : short;
}

/** Appends one stored message's entries: user text, assistant text, tool calls completed by their results. */
export function appendMessage(entries: ChatEntry[], message: Message): void {
  for (const block of blocks(message.content)) {
    if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "") {
      const last = entries[entries.length - 1];
      if (message.role === "assistant" && last?.kind === "assistant") {
        entries[entries.length - 1] = { kind: "assistant", text: `${last.text}\n\n${block.text}` };
      } else {
        entries.push({ kind: message.role === "user" ? "user" : "assistant", text: block.text });
      }
    } else if (block.type === "tool_use") {
      const entry: ChatEntry = {
        kind: "tool",
        id: String(block.id ?? ""),
        name: String(block.name ?? "tool"),
        summary: summariseInput(block.input),
        state: "running",
        result: "",
      };
      if (block.name === "edit_file") {
        entry.input = block.input; // its "Edited file +N −M" row, once its result says it succeeded
      }
      entries.push(entry);
    } else if (block.type === "tool_result") {
      const id = String(block.tool_use_id ?? "");
      const index = entries.findLastIndex((entry) => entry.kind === "tool" && entry.id === id);
      if (index >= 0) {
        const tool = entries[index] as Extract<ChatEntry, { kind: "tool" }>;
        entries[index] = { ...tool, state: block.is_error === true ? "error" : "done", result: preview(resultText(block.content)) };
        const edited = block.is_error === true ? undefined : editedByInput(tool.name, tool.input);
        if (edited !== undefined) {
          entries.push(edited);
        }
      }
    }
  }
}

/** compact/messages (the model's view) as chat entries: what an older server without compact/transcript offers. */
export function transcriptFromMessages(messages: readonly Message[]): ChatTranscript {
  const entries: ChatEntry[] = [];
  for (const message of messages) {
    appendMessage(entries, message);
  }
  return { entries: settle(entries), status: undefined, busy: false };
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** One compact/transcript entry of kind compaction/microcompaction as a marker. */
export function markerFromRecord(record: Record<string, unknown>): CompactionMarker {
  const micro = record.kind === "microcompaction";
  const cleared = record.cleared;
  const marker: CompactionMarker = {
    kind: "marker",
    compaction: micro ? "micro" : "full",
    trigger: str(record.trigger) ?? "manual",
    tokensBefore: num(record.tokensBefore),
    tokensAfter: num(record.tokensAfter),
  };
  if (micro) {
    marker.cleared = Array.isArray(cleared) ? cleared.length : typeof cleared === "number" ? cleared : undefined;
  } else {
    marker.summarizer = str(record.summarizer);
    marker.fallback = record.fallback === true;
    marker.fallbackReason = str(record.fallbackReason);
  }
  return marker;
}

/** compact/transcript's entries (message / compaction / microcompaction / undo) as the chat draws them. */
export function transcriptFromRecords(records: readonly unknown[]): ChatTranscript {
  const entries: ChatEntry[] = [];
  /** The full compactions still standing, newest last: an undo reverts the newest (its figures, reversed). */
  const standing: Record<string, unknown>[] = [];
  for (const raw of records) {
    if (typeof raw !== "object" || raw === null) {
      continue;
    }
    const record = raw as Record<string, unknown>;
    if (record.kind === "message") {
      const message = (typeof record.message === "object" && record.message !== null ? record.message : record) as Message;
      if (message.role === "user" || message.role === "assistant") {
        appendMessage(entries, message);
      }
    } else if (record.kind === "compaction" || record.kind === "microcompaction") {
      if (record.kind === "compaction") {
        standing.push(record);
      }
      entries.push(markerFromRecord(record));
    } else if (record.kind === "undo") {
      const undone = standing.pop();
      const figure = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
      entries.push({
        kind: "marker",
        compaction: "undo",
        trigger: "manual",
        tokensBefore: figure(undone?.tokensAfter),
        tokensAfter: figure(undone?.tokensBefore),
      });
    }
  }
  return { entries: settle(entries), status: undefined, busy: false };
}

/** A stored tool call without a result never ran to the end. */
function settle(entries: ChatEntry[]): ChatEntry[] {
  return entries.map((entry) => (entry.kind === "tool" && entry.state === "running" ? { ...entry, state: "error", result: "(no result)" } : entry));
}
