// The context as a picture: kinds to scale of the window, the biggest items, cleared results. Pure.
import type { Block, Message, Usage } from "../protocol";
import { CLEARED_TOOL_RESULT } from "../protocol";
import { kindLabel } from "./usageFormat";

export interface Segment {
  kind: string;
  label: string;
  tokens: number;
  /** Share of the context window, 0–100. */
  width: number;
}

export interface Picture {
  segments: Segment[];
  free: number;
  freeWidth: number;
  /** Positions of the thresholds along the bar, 0–100. */
  warningAt: number;
  autoCompactAt: number;
}

/** Stable order so the bar does not reshuffle as sizes change. */
const KIND_ORDER = ["system", "memory", "userText", "assistantText", "toolUse", "toolResult", "attachments"];

export function contextPicture(usage: Usage): Picture {
  const window = Math.max(1, usage.contextWindow);
  const kinds = Object.keys(usage.byKind).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const segments = kinds
    .filter((kind) => usage.byKind[kind] > 0)
    .map((kind) => ({
      kind,
      label: kindLabel(kind),
      tokens: usage.byKind[kind],
      width: (100 * usage.byKind[kind]) / window,
    }));
  const used = segments.reduce((sum, segment) => sum + segment.width, 0);
  // A context over the window still draws as a full bar: scale the segments down to fit.
  if (used > 100) {
    for (const segment of segments) {
      segment.width = (segment.width * 100) / used;
    }
  }
  return {
    segments,
    free: Math.max(0, usage.contextWindow - usage.total),
    freeWidth: Math.max(0, 100 - Math.min(100, used)),
    warningAt: clampPercent((100 * usage.warningThreshold) / window),
    autoCompactAt: clampPercent((100 * usage.autoCompactThreshold) / window),
  };
}

function rank(kind: string): number {
  const index = KIND_ORDER.indexOf(kind);
  return index < 0 ? KIND_ORDER.length : index;
}

function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, value));
}

export interface ContextItem {
  /** "Read src/app.py", "Bash: npm test", "User message 3". */
  label: string;
  kind: string;
  /** Index of the message in the current view. */
  messageIndex: number;
  tokens: number;
  cleared: boolean;
  toolUseId?: string;
}

/**
 * Every block of the current view as an item. The server reports exact tokens per kind only, so an item's tokens
 * are its share of its kind's exact total by characters: items of a kind add up to the server's figure.
 */
export function contextItems(messages: Message[], usage: Usage): ContextItem[] {
  const toolUses = new Map<string, Block>();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use" && typeof block.id === "string") {
        toolUses.set(block.id, block);
      }
    }
  }
  const raw: { item: ContextItem; chars: number }[] = [];
  messages.forEach((message, messageIndex) => {
    for (const block of blocksOf(message)) {
      const described = describeBlock(block, message.role, toolUses);
      raw.push({
        item: { ...described, messageIndex: messageIndex, tokens: 0 },
        chars: Math.max(1, blockChars(block)),
      });
    }
  });
  const charsByKind = new Map<string, number>();
  for (const { item, chars } of raw) {
    charsByKind.set(item.kind, (charsByKind.get(item.kind) ?? 0) + chars);
  }
  return raw.map(({ item, chars }) => {
    const kindTokens = usage.byKind[item.kind];
    const kindChars = charsByKind.get(item.kind) ?? chars;
    const tokens = kindTokens !== undefined ? (kindTokens * chars) / kindChars : chars / 4;
    return { ...item, tokens: Math.round(tokens) };
  });
}

export function biggestItems(items: ContextItem[], limit = 10): ContextItem[] {
  return items
    .filter((item) => !item.cleared)
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, limit);
}

export function clearedItems(items: ContextItem[]): ContextItem[] {
  return items.filter((item) => item.cleared);
}

function blocksOf(message: Message): Block[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

function describeBlock(
  block: Block,
  role: string,
  toolUses: Map<string, Block>,
): Omit<ContextItem, "messageIndex" | "tokens"> {
  switch (block.type) {
    case "tool_use":
      return { label: `Call ${toolLabel(block)}`, kind: "toolUse", cleared: false, toolUseId: block.id };
    case "tool_result": {
      const use = typeof block.tool_use_id === "string" ? toolUses.get(block.tool_use_id) : undefined;
      const label = use !== undefined ? `Result of ${toolLabel(use)}` : "Tool result";
      return {
        label,
        kind: "toolResult",
        cleared: resultText(block.content) === CLEARED_TOOL_RESULT,
        toolUseId: block.tool_use_id,
      };
    }
    case "image":
      return { label: "Image", kind: "attachments", cleared: false };
    case "thinking":
    case "redacted_thinking":
      return { label: "Thinking", kind: "assistantText", cleared: false };
    default: {
      const text = typeof block.text === "string" ? block.text : "";
      const kind = role === "assistant" ? "assistantText" : "userText";
      // compact/messages folds attachments (re-attached files, changed-file notices) in as <file path="..."> text.
      const attached = /^\s*<file path="([^"]+)"/.exec(text);
      if (attached !== null) {
        return { label: `Attached file ${attached[1]}`, kind, cleared: false };
      }
      const first = text.trim().split("\n")[0] ?? "";
      const who = role === "assistant" ? "Assistant" : "User";
      return { label: `${who}: ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`, kind, cleared: false };
    }
  }
}

/** "read_file src/app.py", "Bash npm test", or just the tool name. */
function toolLabel(use: Block): string {
  const name = typeof use.name === "string" ? use.name : "tool";
  const input = use.input;
  if (typeof input === "object" && input !== null) {
    const record = input as Record<string, unknown>;
    for (const key of ["file_path", "path", "pattern", "command", "url"]) {
      const value = record[key];
      if (typeof value === "string" && value !== "") {
        return `${name} ${value.length > 60 ? `${value.slice(0, 59)}…` : value}`;
      }
    }
  }
  return name;
}

function resultText(content: unknown): string {
  if (typeof content === "string") {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && typeof part.text === "string" ? part.text : ""))
      .join("");
  }
  return "";
}

function blockChars(block: Block): number {
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text.length : 0;
    case "thinking":
      return typeof block.thinking === "string" ? block.thinking.length : 0;
    case "tool_use":
      return (block.name?.length ?? 0) + JSON.stringify(block.input ?? {}).length;
    case "tool_result":
      return typeof block.content === "string" ? block.content.length : JSON.stringify(block.content ?? "").length;
    default:
      return JSON.stringify(block).length;
  }
}
