// The wire shapes of docs/protocol.md. They are generated from the protocol's one definition,
// docs/protocol.schema.json, into protocol.generated.ts (`npm run protocol:generate`; CI fails when it is stale).
// This module only names them as the extension uses them and holds the method and command names: never restate
// a shape here, change the schema.
import type * as Wire from "./protocol.generated";

export type {
  BiggestItem,
  Block,
  ChatResult,
  ClearedResult,
  CompactionEntry,
  DidChangeOpenElsewhereParams,
  DidChangeUsageParams,
  DidCompactParams,
  Freshness,
  ImportSessionResult,
  InstallClaudeCodeHookArguments,
  InstallClaudeCodeHookResult,
  Message,
  MessageEntry,
  MicrocompactionEntry,
  NothingToClear,
  Outcome,
  ReadFileEntry,
  RehydrationBudget,
  RehydrationCandidate,
  RehydrationPreview,
  SessionInfo,
  SessionSource,
  Settings,
  Status,
  Summarizer,
  TimelineResult,
  TimelineRow,
  NextCompaction,
  TranscriptEntry,
  TranscriptResult,
  UndoEntry,
  Usage,
  UsageByKind,
  UsageLevel,
  WorkingSetResult,
  WorkingSetRow,
} from "./protocol.generated";

/** `compact.microcompact`: what was cleared, or the outcome "nothing to clear" (`changed: false`). */
export type MicrocompactResult = Wire.MicrocompactCommandResult;
/** `compact.compact`: the compaction, or an outcome such as cancelled or "would not be smaller" (`changed: false`). */
export type CompactResult = Wire.CompactCommandResult;
/** `compact.undo`: what was restored, or the outcome "nothing to undo" (`changed: false`). */
export type UndoResult = Wire.UndoCommandResult;
/** `compact/messages`. */
export type MessagesView = Wire.MessagesResult;
/** `compact/chatEvent`, one shape per `kind`. */
export type ChatEvent = Wire.ChatEventParams;
export type ChatEventKind = ChatEvent["kind"];

export const Methods = {
  newSession: "compact/newSession",
  sessions: "compact/sessions",
  currentSession: "compact/currentSession",
  selectSession: "compact/selectSession",
  renameSession: "compact/renameSession",
  transcript: "compact/transcript",
  timeline: "compact/timeline",
  workingSet: "compact/workingSet",
  status: "compact/status",
  messages: "compact/messages",
  append: "compact/append",
  readFile: "compact/readFile",
  importSession: "compact/importSession",
  chat: "compact/chat",
  didChangeUsage: "compact/didChangeUsage",
  didCompact: "compact/didCompact",
  chatEvent: "compact/chatEvent",
  didChangeOpenElsewhere: "compact/didChangeOpenElsewhere",
} as const satisfies Record<string, keyof Wire.CompactLspProtocol["requests"] | keyof Wire.CompactLspProtocol["notifications"]>;

export const ServerCommands = {
  microcompact: "compact.microcompact",
  compact: "compact.compact",
  undo: "compact.undo",
  status: "compact.status",
  rehydrationPreview: "compact.rehydrationPreview",
  installClaudeCodeHook: "compact.installClaudeCodeHook",
  installCodexHook: "compact.installCodexHook",
  installQwenCodeHook: "compact.installQwenCodeHook",
  installGeminiCLIHook: "compact.installGeminiCLIHook",
} as const satisfies Record<string, keyof Wire.CompactLspProtocol["commands"]>;

export const CLEARED_TOOL_RESULT = "[Old tool result content cleared]";
