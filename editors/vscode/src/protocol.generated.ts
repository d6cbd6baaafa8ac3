// Generated from docs/protocol.schema.json by `npm run protocol:generate` (json-schema-to-typescript).
// Do not edit: change the schema (and docs/protocol.md), then regenerate. CI fails when this file is stale.

/**
 * A session id: letters, digits, '_', '.', '-' (ses_… or cc-… for imports).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionId".
 */
export type SessionId = string;
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionSource".
 */
export type SessionSource = "chat" | "import" | "api" | "claude-code" | "codex" | "qwen-code" | "gemini-cli";
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UsageLevel".
 */
export type UsageLevel = "ok" | "warning" | "critical";
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionsResult".
 */
export type SessionsResult = SessionInfo[];
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TranscriptEntry".
 */
export type TranscriptEntry = MessageEntry | MicrocompactionEntry | CompactionEntry | UndoEntry;
/**
 * Who wrote the summary: the model (anthropic), the offline summariser, the session notes, or the agent itself (agent: an agent's own compaction, shown in a followed or imported session's transcript; its markers carry the figures and trigger its transcript recorded, null where they are not known).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Summarizer".
 */
export type Summarizer = "anthropic" | "offline" | "session-memory" | "agent";
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Freshness".
 */
export type Freshness = "fresh" | "stale" | "deleted" | "unknown";
/**
 * One pin: a tool result (never microcompacted) or a file (rehydrated first).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "PinnedItem".
 */
export type PinnedItem =
  | {
      kind: "toolResult";
      toolUseId: string;
      /**
       * its tool call is still in the model's view
       */
      inHistory: boolean;
      tool?: string;
      path?: string;
    }
  | {
      kind: "file";
      /**
       * relative to the workspace root when inside it, else absolute
       */
      path: string;
    };
/**
 * A session id: letters, digits, '_', '.', '-' (ses_… or cc-… for imports).
 */
export type SessionId1 = string;
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MicrocompactCommandResult".
 */
export type MicrocompactCommandResult = MicrocompactResult | NothingToClear;
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CompactCommandResult".
 */
export type CompactCommandResult = CompactResult | Outcome;
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "OutcomeKind".
 */
export type OutcomeKind = "cancelled" | "not_smaller" | "empty" | "nothing_to_undo";
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UndoCommandResult".
 */
export type UndoCommandResult = UndoResult | Outcome;
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatEventParams".
 */
export type ChatEventParams = ChatTextEvent | ChatToolUseEvent | ChatToolResultEvent | ChatStatusEvent | ChatErrorEvent;

/**
 * The compact-lsp protocol, one definition for the server, the tests and the editors. docs/protocol.md is its human-readable form; change both together. Hand-written: `requests` maps each custom request to its params and result, `commands` each workspace/executeCommand command to its argument object and result, `notifications` each server-to-client notification to its params, and `settings` is the initializationOptions / didChangeConfiguration object.
 */
export interface CompactLspProtocol {
  requests: {
    "compact/newSession": {
      params: NewSessionParams;
      result: NewSessionResult;
    };
    "compact/sessions": {
      params: SessionsParams;
      result: SessionsResult;
    };
    "compact/currentSession": {
      params: CurrentSessionParams;
      result: CurrentSessionResult;
    };
    "compact/selectSession": {
      params: SelectSessionParams;
      result: SelectSessionResult;
    };
    "compact/renameSession"?: {
      params: RenameSessionParams;
      result: RenameSessionResult;
    };
    "compact/transcript": {
      params: TranscriptParams;
      result: TranscriptResult;
    };
    "compact/append": {
      params: AppendParams;
      result: AppendResult;
    };
    "compact/messages": {
      params: MessagesParams;
      result: MessagesResult;
    };
    "compact/readFile": {
      params: ReadFileParams;
      result: ReadFileResult;
    };
    "compact/status": {
      params: StatusParams;
      result: Status;
    };
    "compact/importSession": {
      params: ImportSessionParams;
      result: ImportSessionResult;
    };
    "compact/chat": {
      params: ChatParams;
      result: ChatResult;
    };
    "compact/pin"?: {
      params: PinParams;
      result: PinResult;
    };
    "compact/unpin"?: {
      params: PinParams;
      result: PinResult;
    };
    "compact/revokeFile"?: {
      params: RevokeFileParams;
      result: RevokeFileResult;
    };
    "compact/timeline"?: {
      params: TimelineParams;
      result: TimelineResult;
    };
    "compact/workingSet"?: {
      params: WorkingSetParams;
      result: WorkingSetResult;
    };
  };
  commands: {
    "compact.microcompact": {
      arguments: MicrocompactArguments;
      result: MicrocompactCommandResult;
    };
    "compact.compact": {
      arguments: CompactArguments;
      result: CompactCommandResult;
    };
    "compact.undo": {
      arguments: UndoArguments;
      result: UndoCommandResult;
    };
    "compact.status": {
      arguments: StatusArguments;
      result: Status;
    };
    "compact.rehydrationPreview": {
      arguments: RehydrationPreviewArguments;
      result: RehydrationPreview;
    };
    "compact.installClaudeCodeHook": {
      arguments: InstallClaudeCodeHookArguments;
      result: InstallClaudeCodeHookResult;
    };
    "compact.installCodexHook": {
      arguments: InstallCodexHookArguments;
      result: InstallClaudeCodeHookResult;
    };
    "compact.installQwenCodeHook": {
      arguments: InstallQwenCodeHookArguments;
      result: InstallClaudeCodeHookResult;
    };
    "compact.installGeminiCLIHook": {
      arguments: InstallGeminiCLIHookArguments;
      result: InstallClaudeCodeHookResult;
    };
  };
  notifications: {
    "compact/didChangeUsage": {
      params: DidChangeUsageParams;
    };
    "compact/didCompact": {
      params: DidCompactParams;
    };
    "compact/chatEvent": {
      params: ChatEventParams;
    };
    "compact/didChangeOpenElsewhere": {
      params: DidChangeOpenElsewhereParams;
    };
  };
  settings: Settings;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "NewSessionParams".
 */
export interface NewSessionParams {
  title?: string;
  source?: "chat" | "api";
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "NewSessionResult".
 */
export interface NewSessionResult {
  sessionId: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionsParams".
 */
export interface SessionsParams {}
/**
 * One compact/sessions item.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionInfo".
 */
export interface SessionInfo {
  sessionId: SessionId;
  title: string;
  source: SessionSource;
  /**
   * ISO 8601 UTC, e.g. 2026-11-30T07:01:02Z
   */
  createdAt: string;
  /**
   * ISO 8601 UTC, e.g. 2026-11-30T07:01:02Z
   */
  updatedAt: string;
  /**
   * Messages in the model's current view, the ones tokens counts: since the last compaction (ours or the agent's) for every session; its chat (compact/transcript) shows more when it was compacted.
   */
  messages: number;
  tokens: number;
  current: boolean;
  damaged: boolean;
  damagedRecords: number;
  usage: Usage;
  /**
   * An agent's transcript (Claude Code, Codex, Qwen Code) followed read-only: reads work, changes are refused (kind read_only).
   */
  readOnly: boolean;
  /**
   * With readOnly: the agent that owns the session, in its own words (Claude Code, Codex, Qwen Code).
   */
  owner?: string;
  /**
   * A copy imported from an agent's session (Import to continue): that agent, in its own words (Claude Code, Codex, Qwen Code, Gemini CLI); its earlier answers are that agent's.
   */
  importedFrom?: string;
  openElsewhere?: OpenElsewhere;
}
/**
 * How full the context window is (docs/protocol.md, Shared shapes).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Usage".
 */
export interface Usage {
  total: number;
  contextWindow: number;
  percent: number;
  autoCompactThreshold: number;
  warningThreshold: number;
  level: UsageLevel;
  byKind: UsageByKind;
  /**
   * Our count of the messages; total is it too, except for a followed session whose agent reported its input size: then total (and percent, level) is the agent's figure, in the agent's contextWindow.
   */
  estimated: number;
  /**
   * The API's last reported input size, when the client sent one.
   */
  reported?: number;
  nextCompaction?: NextCompaction;
}
/**
 * Tokens by kind; every kind below is always sent (a later server may add kinds: show an unknown one by its name).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UsageByKind".
 */
export interface UsageByKind {
  system: number;
  userText: number;
  assistantText: number;
  toolUse: number;
  toolResult: number;
  attachments: number;
  memory: number;
  [k: string]: number;
}
/**
 * How far the next automatic compaction is: ours (our autoCompact settings) for our own sessions, the agent's for a followed session whose agent's threshold we can tell (Claude Code, Codex: from its configuration where it runs, its version and its reported window); the growth per turn so far gives the turns. The gauge's level and warningThreshold follow it.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "NextCompaction".
 */
export interface NextCompaction {
  /**
   * The context size the agent compacts at by itself; null when it will not (disabledBy says why).
   */
  thresholdTokens: number | null;
  /**
   * ~ tokens until then.
   */
  tokensLeft: number | null;
  /**
   * ~ user turns until then, at the growth per turn so far; null before the first turn.
   */
  turnsLeft: number | null;
  /**
   * The context's growth per user turn so far.
   */
  perTurn: number | null;
  /**
   * At most two turns or 10% of the threshold away: warn (once); the gauge's level is then warning.
   */
  near: boolean;
  /**
   * Where the threshold comes from, in the user's words.
   */
  origin: string;
  /**
   * A setting that silently turns the agent's automatic compaction off, named with where it is set.
   */
  disabledBy: string | null;
}
/**
 * Another compact-lsp server (another editor window on the folder) holds the session's write lock: this one follows it read-only, its changes refused (kind read_only, the same owner). What the lock file names.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "OpenElsewhere".
 */
export interface OpenElsewhere {
  pid?: number;
  /**
   * Only when it is not this machine.
   */
  host?: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CurrentSessionParams".
 */
export interface CurrentSessionParams {}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CurrentSessionResult".
 */
export interface CurrentSessionResult {
  sessionId: SessionId | null;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SelectSessionParams".
 */
export interface SelectSessionParams {
  sessionId: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SelectSessionResult".
 */
export interface SelectSessionResult {}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RenameSessionParams".
 */
export interface RenameSessionParams {
  sessionId: SessionId;
  /**
   * The new title: one line (no control characters), at most 200 characters once surrounding whitespace is dropped, not blank.
   */
  title: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RenameSessionResult".
 */
export interface RenameSessionResult {}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TranscriptParams".
 */
export interface TranscriptParams {
  sessionId: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TranscriptResult".
 */
export interface TranscriptResult {
  sessionId: SessionId;
  entries: TranscriptEntry[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MessageEntry".
 */
export interface MessageEntry {
  kind: "message";
  at: string | null;
  message: Message;
}
/**
 * An Anthropic Messages API message param.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Message".
 */
export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
  [k: string]: unknown;
}
/**
 * An Anthropic Messages API content block (text, image, tool_use, tool_result, thinking, redacted_thinking); kept byte for byte. The fields named here are those of the common block types; any other field is kept as sent.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Block".
 */
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
  [k: string]: unknown;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MicrocompactionEntry".
 */
export interface MicrocompactionEntry {
  kind: "microcompaction";
  at: string | null;
  trigger: "idle" | "size" | "forced";
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  cleared: ClearedResult[];
  protected: ProtectedResult[];
  evictedReadPaths: string[];
  unresolved: string[];
  mediaCleared: number;
  createdAt: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ClearedResult".
 */
export interface ClearedResult {
  toolUseId: string;
  tool: string;
  path?: string;
  paths: string[];
  tokens: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ProtectedResult".
 */
export interface ProtectedResult {
  toolUseId: string;
  path?: string;
  paths: string[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CompactionEntry".
 */
export interface CompactionEntry {
  kind: "compaction";
  at: string | null;
  boundaryId: string;
  /**
   * What set it off; null only for an agent's compaction whose transcript does not say (a 1.0.x Claude Code compaction; a copy imported before imports recorded it).
   */
  trigger: "auto" | "manual" | null;
  summarizer: Summarizer;
  fallback: boolean;
  fallbackReason: string | null;
  /**
   * null only for an agent's compaction whose transcript did not record it (Gemini CLI before its next reported prompt; a copy imported before imports recorded it): never a made-up 0.
   */
  tokensBefore: number | null;
  /**
   * null only for an agent's compaction whose transcript did not record it (Gemini CLI before its next reported prompt; a copy imported before imports recorded it): never a made-up 0.
   */
  tokensAfter: number | null;
  /**
   * The summary this compaction wrote (what the model read instead of the earlier conversation); null when the journal does not hold it.
   */
  summary?: string | null;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UndoEntry".
 */
export interface UndoEntry {
  kind: "undo";
  at: string | null;
  boundaryId: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "AppendParams".
 */
export interface AppendParams {
  sessionId: SessionId;
  messages: Message[];
  /**
   * The API's usage object of the last response.
   */
  usage?: {};
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "AppendResult".
 */
export interface AppendResult {
  usage: Usage;
  microcompaction?: MicrocompactResult;
  compaction?: CompactResult;
  compactionError?: string;
}
/**
 * What one microcompaction cleared (compact.microcompact, compact/append's microcompaction, compact/status).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MicrocompactResult".
 */
export interface MicrocompactResult {
  changed: true;
  trigger: "idle" | "size" | "forced";
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  cleared: ClearedResult[];
  protected: ProtectedResult[];
  evictedReadPaths: string[];
  unresolved: string[];
  mediaCleared: number;
  createdAt: string;
}
/**
 * A full compaction that happened (compact.compact, compact/append's compaction, compact/status's lastCompaction).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CompactResult".
 */
export interface CompactResult {
  changed: true;
  tokensBefore: number;
  tokensAfter: number;
  summarizer: Summarizer;
  fallback: boolean;
  fallbackReason: string | null;
  rehydrated: Rehydrated[];
  boundaryId: string;
  trigger: "auto" | "manual";
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Rehydrated".
 */
export interface Rehydrated {
  kind: string;
  path: string | null;
  tokens: number;
  /**
   * For a file that came back in part: the line ranges it holds, "a-b,c-d".
   */
  lines?: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MessagesParams".
 */
export interface MessagesParams {
  sessionId: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MessagesResult".
 */
export interface MessagesResult {
  system: string;
  messages: Message[];
  usage: Usage;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ReadFileParams".
 */
export interface ReadFileParams {
  sessionId: SessionId;
  path: string;
  offset?: number;
  limit?: number;
  toolUseId?: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ReadFileResult".
 */
export interface ReadFileResult {
  path: string;
  content: string;
  startLine: number;
  numLines: number;
  totalLines: number;
  truncated: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "StatusParams".
 */
export interface StatusParams {
  sessionId?: SessionId;
}
/**
 * compact/status and compact.status.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Status".
 */
export interface Status {
  sessionId: SessionId;
  title: string;
  usage: Usage;
  messageCount: number;
  readFiles: ReadFileEntry[];
  lastMicrocompaction: MicrocompactResult | null;
  lastCompaction: CompactResult | null;
  compacting: boolean;
  canUndo: boolean;
  sessionNotes: SessionNotes | null;
  biggestItems: BiggestItem[];
  /**
   * The session's pins (compact/pin), in pin order, tool results first.
   */
  pinned: PinnedItem[];
  /**
   * Files outside the work roots the user admitted, approvals first (compact/revokeFile takes one back).
   */
  admittedFiles: AdmittedFile[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ReadFileEntry".
 */
export interface ReadFileEntry {
  path: string;
  /**
   * What the model did with the file; editor: open in the editor, never read.
   */
  kind: "read" | "write" | "edit" | "editor";
  freshness: Freshness;
  range: string;
  tokens: number;
  /**
   * ISO 8601 UTC, e.g. 2026-11-30T07:01:02Z
   */
  readAt: string;
  inHistory: boolean;
  open: boolean;
  dirty: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionNotes".
 */
export interface SessionNotes {
  coveredUpto: number;
  writer: string;
  updatedAt: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "BiggestItem".
 */
export interface BiggestItem {
  kind: string;
  label: string;
  tokens: number;
  messageIndex: number;
  tool?: string;
  path?: string;
  toolUseId?: string;
}
/**
 * A file outside the work roots the user let the agent use: approved in the agent (read or edit) or shown used with success by a Claude Code transcript; rehydration may re-attach it.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "AdmittedFile".
 */
export interface AdmittedFile {
  /**
   * Its real path.
   */
  path: string;
  reason: "read" | "edit" | "transcript";
}
/**
 * A Claude Code log by path, or a followed Claude Code session by id ("Import to continue"): exactly one of the two.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ImportSessionParams".
 */
export interface ImportSessionParams {
  path?: string;
  sessionId?: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ImportSessionResult".
 */
export interface ImportSessionResult {
  sessionId: SessionId;
  title: string;
  messages: number;
  tokens: number;
  problems: string[];
  repairs: string[];
  /**
   * True when the followed session had been imported before: its copy is opened, nothing is written.
   */
  alreadyImported?: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatParams".
 */
export interface ChatParams {
  sessionId: SessionId;
  text: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatResult".
 */
export interface ChatResult {
  stopReason: string;
  usage: Usage;
  error?: string;
  /**
   * What failed, when stopReason is error: auth, rate_limit, overloaded, timeout, connection, api, bad_response, internal.
   */
  errorKind?: string;
}
/**
 * compact/pin and compact/unpin: at least one of toolUseId and path.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "PinParams".
 */
export interface PinParams {
  sessionId: SessionId;
  toolUseId?: string;
  path?: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "PinResult".
 */
export interface PinResult {
  pinned: PinnedItem[];
}
/**
 * compact/revokeFile: take back a file admitted outside the work roots; rehydration no longer re-attaches it and the agent asks again before it uses it.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RevokeFileParams".
 */
export interface RevokeFileParams {
  sessionId: SessionId;
  path: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RevokeFileResult".
 */
export interface RevokeFileResult {
  admittedFiles: AdmittedFile[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TimelineParams".
 */
export interface TimelineParams {
  sessionId: SessionId;
}
/**
 * compact/timeline: every compaction of a session, whatever agent ran it, one row each, oldest first. Read from the session's journal (ours) or the agent's transcript (Claude Code, Codex, Qwen Code); nothing is written.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TimelineResult".
 */
export interface TimelineResult {
  sessionId: SessionId;
  /**
   * Who compacted: our server, or the agent a followed session belongs to.
   */
  agent: "compact-lsp" | "claude-code" | "codex" | "qwen-code" | "gemini-cli";
  /**
   * The automatic-compaction threshold configured now: ours from the settings, a followed agent's from its configuration (null when it will not compact by itself or we cannot tell).
   */
  thresholdTokens: number | null;
  rows: TimelineRow[];
  /**
   * What turns automatic compaction off now, named with where it is set (null: nothing).
   */
  disabledBy?: string | null;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TimelineRow".
 */
export interface TimelineRow {
  /**
   * A full compaction (a summary), a microcompaction (old tool results cleared), or the undo of a full one (its tokensBefore and tokensAfter: that compaction's, reversed).
   */
  kind: "full" | "micro" | "undo";
  /**
   * When, ISO 8601 UTC; null when the record does not say.
   */
  at: string | null;
  /**
   * manual, auto, idle or size (ours); manual or auto (Claude Code's compactMetadata.trigger).
   */
  trigger: string;
  tokensBefore?: number | null;
  tokensAfter?: number | null;
  /**
   * The summary the model read instead of the earlier messages.
   */
  summary?: string | null;
  /**
   * Ours: which compaction of the session this is (opens its summary read-only).
   */
  summaryIndex?: number;
  summarizer?: string | null;
  fallback?: boolean;
  /**
   * A microcompaction's cleared tool results.
   */
  cleared?: TimelineCleared[];
  /**
   * Files the agent re-attached itself after the compaction (Claude Code's file attachments).
   */
  reattached?: string[];
  /**
   * What a SessionStart hook's context became in the agent's transcript after the compaction (read back, not what the hook sent).
   */
  receipts?: TimelineReceipt[];
  /**
   * Codex: the texts its compaction kept besides the summary (at most 20).
   */
  kept?: string[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TimelineCleared".
 */
export interface TimelineCleared {
  toolUseId: string;
  tool?: string;
  path?: string;
  tokens?: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "TimelineReceipt".
 */
export interface TimelineReceipt {
  /**
   * The hook's name as the transcript records it (SessionStart…).
   */
  hook: string;
  /**
   * Characters of context the transcript holds from it.
   */
  characters: number;
  /**
   * Past the agent's inline limit (10,000 characters): Claude Code saves it to a file with a preview in the context; Codex cuts it to a head-and-tail preview.
   */
  spilled: boolean;
  /**
   * The files whose content the hook's context delivered, as far as what the agent recorded shows them (a spilled context's preview names fewer).
   */
  files?: string[];
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "WorkingSetParams".
 */
export interface WorkingSetParams {
  sessionId?: SessionId1;
}
/**
 * compact/workingSet: the session's ledger (what the agent changed, what went stale, what it last ran, its open plan items), checked against the disk now, as rows with links, and the text the model gets after its next compaction. Read-only.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "WorkingSetResult".
 */
export interface WorkingSetResult {
  sessionId: SessionId;
  /**
   * The working directory the paths are relative to (null: not known).
   */
  cwd: string | null;
  /**
   * Every fact, in the ledger's order; not cut (the cut is the model's budget).
   */
  rows: WorkingSetRow[];
  /**
   * The ledger block exactly as the model gets it (<working-set>…</working-set>), cut to its budget; empty when there is nothing to say.
   */
  text: string;
  /**
   * The length of text.
   */
  characters: number;
  /**
   * Facts the text leaves out for its budget.
   */
  leftOut: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "WorkingSetRow".
 */
export interface WorkingSetRow {
  /**
   * A command and how it ended; a file the agent created, edited, wrote or deleted; a file it read that changed on disk since; an open plan item.
   */
  kind: "command" | "edited" | "stale" | "plan";
  /**
   * The line as the model reads it.
   */
  line: string;
  /**
   * A file's path as the line names it: relative to cwd when under it.
   */
  path?: string;
  absolutePath?: string;
  /**
   * A file: URI to open it (absent when the log named a relative path with no working directory).
   */
  uri?: string;
  /**
   * Changed by someone else since the agent's last change or read.
   */
  outside?: boolean;
  /**
   * Not on disk now.
   */
  gone?: boolean;
  change?: "created" | "edited" | "written" | "deleted";
  /**
   * Lines added since the agent first saw the file (or by its edits).
   */
  added?: number;
  removed?: number;
  /**
   * A created file's lines now.
   */
  lines?: number;
  /**
   * A stale file's bytes now.
   */
  size?: number;
  label?: "Last test" | "Last build/check" | "Last command";
  /**
   * Its first line, cut to 80 characters.
   */
  command?: string;
  commandKind?: "test" | "build" | null;
  /**
   * exit N, failed, timed out or interrupted: as the log records it.
   */
  status?: string;
  ok?: boolean;
  exitCode?: number | null;
  /**
   * The one line that decides (the failing test, the first error, else the last line); null for a command naming a credential-class file.
   */
  decisive?: string | null;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MicrocompactArguments".
 */
export interface MicrocompactArguments {
  sessionId?: SessionId;
}
/**
 * compact.microcompact found nothing to clear: an outcome, not an error, with every field of a microcompaction that cleared something (zero or empty).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "NothingToClear".
 */
export interface NothingToClear {
  changed: false;
  kind: "nothing_to_clear";
  reason: string;
  trigger: "forced";
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: 0;
  /**
   * @maxItems 0
   */
  cleared: [];
  /**
   * @maxItems 0
   */
  protected: [];
  /**
   * @maxItems 0
   */
  evictedReadPaths: [];
  /**
   * @maxItems 0
   */
  unresolved: [];
  mediaCleared: 0;
  createdAt: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CompactArguments".
 */
export interface CompactArguments {
  sessionId?: SessionId;
  instructions?: string;
}
/**
 * A compaction or undo that did not happen for a reason that is no failure (cancelled, nothing to undo, would not be smaller, empty).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Outcome".
 */
export interface Outcome {
  changed: false;
  kind: OutcomeKind;
  reason: string;
  cancelled?: true;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UndoArguments".
 */
export interface UndoArguments {
  sessionId?: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "UndoResult".
 */
export interface UndoResult {
  changed: true;
  restored: true;
  boundaryId: string;
  tokensAfter: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "StatusArguments".
 */
export interface StatusArguments {
  sessionId?: SessionId;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RehydrationPreviewArguments".
 */
export interface RehydrationPreviewArguments {
  sessionId?: SessionId;
}
/**
 * compact.rehydrationPreview: `budget` is an object; the token budget is budget.tokenBudget. `candidates` lists the files considered, best first, up to the first 100 left out for the budget or the file limit; `unlisted` counts the candidates after them (all left out), so every file the session knows is `candidates.length + unlisted`.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RehydrationPreview".
 */
export interface RehydrationPreview {
  budget: RehydrationBudget;
  candidates: RehydrationCandidate[];
  /**
   * Candidates after the listed ones, left out for the budget or the file limit without being read (0 when every candidate is listed).
   */
  unlisted: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RehydrationBudget".
 */
export interface RehydrationBudget {
  maxFiles: number;
  tokenBudget: number;
  maxTokensPerFile: number;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RehydrationCandidate".
 */
export interface RehydrationCandidate {
  path: string;
  score: number;
  tokens: number;
  included: boolean;
  reason: string;
  partial: boolean;
  deleted: boolean;
  source: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "InstallClaudeCodeHookArguments".
 */
export interface InstallClaudeCodeHookArguments {
  /**
   * project (default): <workspace>/.claude/settings.local.json; user: ~/.claude/settings.json
   */
  scope?: "project" | "user";
  /**
   * remove the hook instead of installing it
   */
  uninstall?: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "InstallClaudeCodeHookResult".
 */
export interface InstallClaudeCodeHookResult {
  /**
   * false when the hook was already installed (or, uninstalling, not there)
   */
  changed: boolean;
  /**
   * the settings file
   */
  path: string;
  /**
   * the copy of the file as it was before the change (<name>.bak), null when nothing changed or the file is new
   */
  backup: string | null;
  /**
   * what happened, for the user
   */
  message: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "InstallCodexHookArguments".
 */
export interface InstallCodexHookArguments {
  /**
   * project (default): <workspace>/.codex/config.toml (Codex reads it in trusted projects); user: $CODEX_HOME/config.toml
   */
  scope?: "project" | "user";
  /**
   * remove the hook instead of installing it
   */
  uninstall?: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "InstallQwenCodeHookArguments".
 */
export interface InstallQwenCodeHookArguments {
  /**
   * project (default): <workspace>/.qwen/settings.json; user: ~/.qwen/settings.json
   */
  scope?: "project" | "user";
  /**
   * remove the hook instead of installing it
   */
  uninstall?: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "InstallGeminiCLIHookArguments".
 */
export interface InstallGeminiCLIHookArguments {
  /**
   * project (default): <workspace>/.gemini/settings.json (Gemini CLI reads it in trusted folders); user: ~/.gemini/settings.json
   */
  scope?: "project" | "user";
  /**
   * remove the hook instead of installing it
   */
  uninstall?: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "DidChangeUsageParams".
 */
export interface DidChangeUsageParams {
  sessionId: SessionId;
  usage: Usage;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "DidCompactParams".
 */
export interface DidCompactParams {
  sessionId: SessionId;
  kind: "micro" | "full" | "undo";
  trigger: "manual" | "auto" | "idle" | "size" | "forced";
  tokensBefore: number;
  tokensAfter: number;
  summarizer: Summarizer | null;
  fallback: boolean;
  fallbackReason: string | null;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatTextEvent".
 */
export interface ChatTextEvent {
  sessionId: SessionId;
  kind: "text";
  text: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatToolUseEvent".
 */
export interface ChatToolUseEvent {
  sessionId: SessionId;
  kind: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatToolResultEvent".
 */
export interface ChatToolResultEvent {
  sessionId: SessionId;
  kind: "tool_result";
  toolUseId: string;
  name: string;
  content: string;
  isError: boolean;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatStatusEvent".
 */
export interface ChatStatusEvent {
  sessionId: SessionId;
  kind: "status";
  message: string;
}
/**
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ChatErrorEvent".
 */
export interface ChatErrorEvent {
  sessionId: SessionId;
  kind: "error";
  message: string;
  errorKind?: string;
}
/**
 * Who writes a loaded session changed: another server took its write lock (openElsewhere names it), or let it go (no openElsewhere: this server may write it). Sent as the lock file changes, for the sessions this server follows; the same as compact/sessions' openElsewhere at that moment.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "DidChangeOpenElsewhereParams".
 */
export interface DidChangeOpenElsewhereParams {
  sessionId: SessionId;
  openElsewhere?: OpenElsewhere;
}
/**
 * initializationOptions, and the compactLsp section of workspace/didChangeConfiguration (whole or in part).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "Settings".
 */
export interface Settings {
  /**
   * The model's context window in tokens.
   */
  contextWindow?: number;
  /**
   * Model for the agent.
   */
  model?: string;
  /**
   * Cheaper model for summaries (unset: `model`).
   */
  compactionModel?: string | null;
  /**
   * Messages API base URL (unset: `ANTHROPIC_BASE_URL`, else the SDK's default).
   */
  baseUrl?: string | null;
  /**
   * Only if the key is not in the server's environment (`ANTHROPIC_API_KEY`); never logged or stored.
   */
  apiKey?: string | null;
  memory?: MemorySettings;
  microcompact?: MicrocompactSettings;
  rehydration?: RehydrationSettings;
  autoCompact?: AutoCompactSettings;
  /**
   * Tool names whose results are file reads.
   */
  readTools?: string[];
  /**
   * Where sessions are stored (unset: the user state directory).
   */
  sessionDir?: string | null;
  /**
   * A shell command run in the workspace before each full compaction; its output is added to the compaction instructions.
   */
  preCompactCommand?: string | null;
  /**
   * Directories outside the workspace folders that the agent may read and edit and that rehydration may re-attach files from (like Claude Code's `/add-dir`); relative ones are relative to the first workspace folder.
   */
  additionalDirectories?: string[];
  sessionMemory?: SessionNotesSettings;
  agent?: AgentSettings;
  claudeCode?: ClaudeCodeSettings;
  codex?: CodexSettings;
  qwenCode?: QwenCodeSettings;
  geminiCli?: GeminiCliSettings;
}
/**
 * The managed memory's folders: project, user and team (None: where they are by default).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MemorySettings".
 */
export interface MemorySettings {
  /**
   * Managed-memory root of the project, anywhere (unset: `<workspace>/.compact/memory`, plus Claude Code's and Qwen Code's project memory folders when they exist).
   */
  projectRoot?: string | null;
  /**
   * The user's managed memory (unset: `<user config dir>/compact-lsp/memory`).
   */
  userRoot?: string | null;
  /**
   * A team's shared managed memory (unset: off).
   */
  teamRoot?: string | null;
}
/**
 * When old tool results are cleared, and which.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "MicrocompactSettings".
 */
export interface MicrocompactSettings {
  /**
   * Compactable tool results always kept (floored at 1).
   */
  keepRecent?: number;
  /**
   * Idle trigger in minutes since the last response; -1 turns it off.
   */
  idleMinutes?: number;
  /**
   * Size trigger in tokens on the tool results outside the kept ones (all of them are cleared when they pass it, so the next rewrite waits for as much again); -1 turns it off; unset: `sizeThresholdPercent` of the context window.
   */
  sizeThresholdTokens?: number | null;
  /**
   * The size trigger as a share of the context window, in percent (40k at 200k).
   */
  sizeThresholdPercent?: number;
  /**
   * Tools whose old results may be cleared. Unset: the server's list (`docs/engine.md`).
   */
  compactableTools?: string[] | null;
}
/**
 * What comes back after a compaction: how many files, within which budget.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "RehydrationSettings".
 */
export interface RehydrationSettings {
  /**
   * At most this many files re-attached after compaction (a bound: the token budget decides which).
   */
  maxFiles?: number;
  /**
   * Files are re-attached after compaction, best ranked first, until this many tokens; unset: `budgetPercent` of the context window.
   */
  tokenBudget?: number | null;
  /**
   * A file over this many tokens comes back as the lines the agent read or edited (else its head); unset: `filePercent` of the context window.
   */
  maxTokensPerFile?: number | null;
  /**
   * The re-attached files' budget as a share of the context window, in percent (20k at 200k).
   */
  budgetPercent?: number;
  /**
   * The per-file cap as a share of the context window, in percent (8k at 200k).
   */
  filePercent?: number;
}
/**
 * When a full compaction starts by itself.
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "AutoCompactSettings".
 */
export interface AutoCompactSettings {
  /**
   * Compact automatically at the threshold.
   */
  enabled?: boolean;
  /**
   * Auto-compact threshold in tokens (`150000`) or a percent of the window (`"80%"`); unset: min(85% of the window, window − 33k).
   */
  threshold?: number | string | null;
  /**
   * The summary's size as a share of the context window, in percent (20k at 200k, at most 32k).
   */
  summaryPercent?: number;
  /**
   * Room a compaction aims to leave below the threshold, as a share of the context window; after an automatic compaction that could not make room, the next waits until the context has grown by about this much.
   */
  headroomPercent?: number;
}
/**
 * The background session notes a compaction can use as its summary (the settings key keeps its first name, `sessionMemory`, so that no user's configuration stops working).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "SessionNotesSettings".
 */
export interface SessionNotesSettings {
  /**
   * Keep background session notes so a compaction can use them at once, without waiting for a model.
   */
  enabled?: boolean;
  /**
   * Write the session notes with the model when an API key is set (otherwise the offline extractor writes them).
   */
  useModel?: boolean;
  /**
   * First session notes once the session has this many tokens.
   */
  firstAfterTokens?: number;
  /**
   * Update the notes after this many more tokens (and the minimum number of tool calls).
   */
  everyTokens?: number;
  /**
   * Tool calls needed since the last notes before they are updated again.
   */
  minToolCalls?: number;
}
/**
 * The built-in chat agent (`compact/chat`).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "AgentSettings".
 */
export interface AgentSettings {
  /**
   * Chat agent: output budget of each model response.
   */
  maxTokens?: number;
  /**
   * Chat agent: model calls in one turn before it stops with `max_rounds`.
   */
  maxRounds?: number;
  /**
   * Chat agent: offer the `run_shell_command` tool (each command still asks for permission).
   */
  shell?: boolean;
  /**
   * Chat agent: retries of a failed API request (429, 5xx, connection errors).
   */
  maxRetries?: number;
  /**
   * Chat agent: seconds per API request.
   */
  timeout?: number;
}
/**
 * Following the workspace's Claude Code transcripts (docs/claude-code.md).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "ClaudeCodeSettings".
 */
export interface ClaudeCodeSettings {
  /**
   * Follow the workspace's Claude Code transcripts as read-only sessions, read from where they stopped as Claude Code appends (unset: when its project directory exists or once it appears).
   */
  follow?: boolean | null;
  /**
   * Claude Code's projects directory (unset: `~/.claude/projects`).
   */
  projectsDir?: string | null;
}
/**
 * Following the workspace's Codex CLI sessions (docs/codex.md).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CodexSettings".
 */
export interface CodexSettings {
  /**
   * Follow the workspace's Codex CLI sessions as read-only sessions, read from where they stopped as Codex appends (unset: when Codex's sessions folder exists).
   */
  follow?: boolean | null;
  /**
   * Codex's home (unset: `$CODEX_HOME`, else `~/.codex`); its sessions are in `sessions/` below it.
   */
  home?: string | null;
}
/**
 * Following the workspace's Qwen Code sessions (docs/qwen-code.md).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "QwenCodeSettings".
 */
export interface QwenCodeSettings {
  /**
   * Follow the workspace's Qwen Code sessions as read-only sessions, read from where they stopped as Qwen appends (unset: when the project's `~/.qwen/projects/<workspace>/chats` folder exists or once it appears).
   */
  follow?: boolean | null;
  /**
   * Qwen Code's own folder (unset: `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`); its sessions are in `projects/<workspace>/chats/` below it.
   */
  home?: string | null;
}
/**
 * Following the workspace's Gemini CLI sessions (docs/gemini-cli.md).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "GeminiCliSettings".
 */
export interface GeminiCliSettings {
  /**
   * Follow the workspace's Gemini CLI sessions as read-only sessions, read again as Gemini writes them (unset: when the project's `~/.gemini/tmp/<project>/chats` folder exists or once it appears).
   */
  follow?: boolean | null;
  /**
   * The folder that holds Gemini CLI's `.gemini` (unset: the home directory).
   */
  home?: string | null;
}
/**
 * initialize result's capabilities.experimental.compactLsp: the server's version and the protocol version it speaks (docs/protocol.md, Versions).
 *
 * This interface was referenced by `CompactLspProtocol`'s JSON-Schema
 * via the `definition` "CompactLspCapability".
 */
export interface CompactLspCapability {
  serverVersion: string;
  protocolVersion: number;
}
