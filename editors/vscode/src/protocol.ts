// The wire shapes of docs/protocol.md, as the extension reads them. Fields the server may add later are optional.

export type UsageLevel = "ok" | "warning" | "critical";

export interface Usage {
  total: number;
  contextWindow: number;
  percent: number;
  autoCompactThreshold: number;
  warningThreshold: number;
  level: UsageLevel;
  byKind: Record<string, number>;
  estimated?: number;
  reported?: number;
}

export type Freshness = "fresh" | "stale" | "deleted" | "unknown";

export interface ReadFileEntry {
  path: string;
  freshness: Freshness;
  range: string;
  tokens: number;
  readAt?: string;
  inHistory?: boolean;
  open?: boolean;
  dirty?: boolean;
}

export interface ClearedResult {
  toolUseId: string;
  tool: string;
  path?: string | null;
  tokens: number;
}

export interface MicrocompactResult {
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  cleared: ClearedResult[];
  protected: { toolUseId: string; path: string }[];
}

export interface CompactResult {
  tokensBefore: number;
  tokensAfter: number;
  summarizer: string;
  rehydrated: { kind: string; path?: string | null; tokens: number }[];
  boundaryId: string;
}

export interface UndoResult {
  restored: boolean;
  boundaryId: string;
  tokensAfter: number;
}

/** One of the biggest blocks in the context, counted exactly by the server (compact/status). */
export interface BiggestItem {
  kind: string;
  label: string;
  tokens: number;
  messageIndex: number;
  tool?: string;
  path?: string;
  toolUseId?: string;
}

export interface Status {
  sessionId: string;
  usage: Usage;
  readFiles: ReadFileEntry[];
  lastMicrocompaction: MicrocompactResult | null;
  lastCompaction: CompactResult | null;
  compacting: boolean;
  /** Exact counts; older servers leave it out and the page estimates from the messages instead. */
  biggestItems?: BiggestItem[];
}

export interface RehydrationCandidate {
  path: string;
  score: number;
  tokens: number;
  included: boolean;
  reason: string;
}

export interface RehydrationPreview {
  budget: number;
  candidates: RehydrationCandidate[];
}

export interface SessionInfo {
  sessionId: string;
  title: string;
  updatedAt: string;
  usage: Usage;
}

/** An Anthropic Messages API content block, loosely typed: the extension only measures and labels blocks. */
export interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  thinking?: string;
  [key: string]: unknown;
}

export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

export interface MessagesView {
  system: unknown;
  messages: Message[];
  usage: Usage;
}

export interface DidChangeUsageParams {
  sessionId: string;
  usage: Usage;
}

export interface DidCompactParams {
  sessionId: string;
  kind: "micro" | "full" | "undo";
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
}

export type ChatEventKind = "text" | "tool_use" | "tool_result" | "status" | "error";

/** `compact/chatEvent`: kind-specific fields vary, so all are optional. */
export interface ChatEvent {
  sessionId: string;
  kind: ChatEventKind;
  text?: string;
  message?: string;
  id?: string;
  toolUseId?: string;
  name?: string;
  input?: unknown;
  content?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

export interface ChatResult {
  /** end_turn, max_tokens, ..., or error, cancelled, max_rounds. */
  stopReason: string;
  usage?: Usage;
  error?: string;
}

export const Methods = {
  newSession: "compact/newSession",
  sessions: "compact/sessions",
  status: "compact/status",
  messages: "compact/messages",
  append: "compact/append",
  readFile: "compact/readFile",
  chat: "compact/chat",
  didChangeUsage: "compact/didChangeUsage",
  didCompact: "compact/didCompact",
  chatEvent: "compact/chatEvent",
} as const;

export const ServerCommands = {
  microcompact: "compact.microcompact",
  compact: "compact.compact",
  undo: "compact.undo",
  status: "compact.status",
  rehydrationPreview: "compact.rehydrationPreview",
} as const;

export const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";
