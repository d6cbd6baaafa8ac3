---@meta
-- LuaCATS shapes of the compact-lsp protocol: the class names are the `$defs` names of docs/protocol.schema.json
-- (prefixed `compact_lsp.`), the field names the wire's (camelCase), as docs/protocol.md gives them.
-- Annotations only.

---@alias compact_lsp.UsageLevel 'ok'|'warning'|'critical'
---@alias compact_lsp.Freshness 'fresh'|'stale'|'deleted'|'unknown'
---@alias compact_lsp.SessionSource 'chat'|'import'|'api'|'claude-code'|'codex'|'qwen-code'|'gemini-cli'
---@alias compact_lsp.Summarizer 'anthropic'|'offline'|'session-memory'|'agent'
---@alias compact_lsp.OutcomeKind 'cancelled'|'not_smaller'|'empty'|'nothing_to_undo'

---@class compact_lsp.Usage
---@field total integer tokens in the context the model will see next
---@field contextWindow integer
---@field percent number
---@field autoCompactThreshold integer?
---@field warningThreshold integer?
---@field level compact_lsp.UsageLevel
---@field byKind table<string, integer> tokens by kind: system, userText, assistantText, toolUse, toolResult, ...
---@field estimated integer?
---@field reported integer?
---@field nextCompaction table? how far the next automatic compaction is (ours, or the agent's of a followed session)

---@class compact_lsp.SessionInfo
---@field sessionId string
---@field title string the given title, else the user's first request; "" with no user text yet
---@field source compact_lsp.SessionSource
---@field createdAt string ISO 8601 UTC
---@field updatedAt string ISO 8601 UTC
---@field messages integer messages in the model's current view
---@field tokens integer the context's total tokens
---@field current boolean the workspace's current session
---@field damaged boolean loading skipped records
---@field damagedRecords integer?
---@field readOnly boolean an agent's transcript (Claude Code, Codex) followed read-only
---@field owner string? with readOnly: the agent that owns it, in its words (Claude Code, Codex)
---@field importedFrom string? a copy imported from an agent's session: that agent, in its words (Codex)
---@field openElsewhere {pid: integer?, host: string?}? another editor window's server writes it: followed read-only here
---@field usage compact_lsp.Usage

---@class compact_lsp.CurrentSessionResult
---@field sessionId string|vim.NIL null when the workspace has no session yet

---@class compact_lsp.ReadFileEntry
---@field path string
---@field kind 'read'|'write'|'edit'|'editor' what the model did with it; editor: open, never read
---@field freshness compact_lsp.Freshness
---@field range string
---@field tokens integer
---@field readAt string?
---@field inHistory boolean?
---@field open boolean?
---@field dirty boolean?

---@class compact_lsp.ClearedResult
---@field toolUseId string
---@field tool string
---@field path string?
---@field paths string[]?
---@field tokens integer

---@class compact_lsp.ProtectedResult
---@field toolUseId string
---@field path string?
---@field paths string[]?

---@class compact_lsp.BiggestItem
---@field kind string as in Usage.byKind
---@field label string
---@field tokens integer
---@field messageIndex integer
---@field tool string?
---@field path string?
---@field toolUseId string?

---@class compact_lsp.Status
---@field sessionId string
---@field title string?
---@field usage compact_lsp.Usage
---@field messageCount integer
---@field readFiles compact_lsp.ReadFileEntry[]
---@field lastMicrocompaction compact_lsp.MicrocompactResult?
---@field lastCompaction compact_lsp.CompactResult?
---@field compacting boolean
---@field canUndo boolean
---@field sessionNotes table?
---@field biggestItems compact_lsp.BiggestItem[]?
---@field pinned table[] pins (compact/pin): {kind = "toolResult", toolUseId, inHistory, tool?, path?} or {kind = "file", path}
---@field admittedFiles table[] files outside the work roots the user admitted: {path, reason = "read"|"edit"|"transcript"}

--- `changed: false`: a request that had nothing to do, or that the user cancelled (a result, not an error).
---@class compact_lsp.Outcome
---@field changed false
---@field kind compact_lsp.OutcomeKind
---@field reason string
---@field cancelled boolean?

--- `compact.microcompact` with nothing to clear.
---@class compact_lsp.NothingToClear
---@field changed false
---@field kind 'nothing_to_clear'
---@field reason string
---@field trigger string
---@field tokensBefore integer
---@field tokensAfter integer
---@field tokensSaved integer
---@field cleared compact_lsp.ClearedResult[]
---@field protected compact_lsp.ProtectedResult[]
---@field evictedReadPaths string[]
---@field unresolved string[]
---@field mediaCleared integer
---@field createdAt string

---@class compact_lsp.MicrocompactResult
---@field changed boolean
---@field trigger string
---@field tokensBefore integer
---@field tokensAfter integer
---@field tokensSaved integer
---@field cleared compact_lsp.ClearedResult[]
---@field protected compact_lsp.ProtectedResult[]
---@field evictedReadPaths string[]
---@field unresolved integer|table?
---@field mediaCleared integer?
---@field createdAt string|number?

---@class compact_lsp.Rehydrated
---@field kind string
---@field path string?
---@field tokens integer
---@field lines string? a file that came back in part: its line ranges, "a-b,c-d"

---@class compact_lsp.CompactResult
---@field changed boolean
---@field tokensBefore integer
---@field tokensAfter integer
---@field summarizer compact_lsp.Summarizer
---@field fallback boolean the API failed and the offline summary was used
---@field fallbackReason string? why (null when `fallback` is false)
---@field rehydrated compact_lsp.Rehydrated[]
---@field boundaryId string
---@field trigger string

---@class compact_lsp.UndoResult
---@field changed boolean
---@field restored boolean
---@field boundaryId string
---@field tokensAfter integer

---@class compact_lsp.RehydrationCandidate
---@field path string
---@field score number
---@field tokens integer
---@field included boolean
---@field reason string?
---@field partial boolean?
---@field deleted boolean?
---@field source string?

---@class compact_lsp.RehydrationBudget
---@field maxFiles integer
---@field tokenBudget integer
---@field maxTokensPerFile integer

---@class compact_lsp.RehydrationPreview
---@field budget compact_lsp.RehydrationBudget
---@field candidates compact_lsp.RehydrationCandidate[] best first, up to the first 100 left out
---@field unlisted integer? candidates after those, left out and not read (absent from older servers)

---@class compact_lsp.MessageEntry
---@field kind 'message'
---@field at string ISO 8601 UTC
---@field message {role: 'user'|'assistant', content: string|table[]}

---@class compact_lsp.CompactionEntry
---@field kind 'compaction'
---@field at string
---@field trigger 'auto'|'manual'
---@field summarizer compact_lsp.Summarizer
---@field fallback boolean
---@field fallbackReason string?
---@field tokensBefore integer
---@field tokensAfter integer
---@field boundaryId string
---@field summary string? the summary the model read instead of the earlier conversation (null: not in the journal)

---@class compact_lsp.MicrocompactionEntry
---@field kind 'microcompaction'
---@field at string
---@field trigger 'idle'|'size'|'forced'
---@field tokensBefore integer
---@field tokensAfter integer
---@field tokensSaved integer
---@field cleared compact_lsp.ClearedResult[]
---@field protected compact_lsp.ProtectedResult[]
---@field evictedReadPaths string[]
---@field unresolved integer|table?
---@field mediaCleared integer?
---@field createdAt string|number?

---@class compact_lsp.UndoEntry
---@field kind 'undo'
---@field at string
---@field boundaryId string

---@alias compact_lsp.TranscriptEntry compact_lsp.MessageEntry|compact_lsp.CompactionEntry|compact_lsp.MicrocompactionEntry|compact_lsp.UndoEntry

---@class compact_lsp.TranscriptResult
---@field sessionId string
---@field entries compact_lsp.TranscriptEntry[]

---@class compact_lsp.DidCompactParams
---@field sessionId string
---@field kind 'micro'|'full'|'undo'
---@field trigger 'manual'|'auto'|'idle'|'size'|'forced'
---@field tokensBefore integer
---@field tokensAfter integer
---@field summarizer compact_lsp.Summarizer?
---@field fallback boolean
---@field fallbackReason string?

---@class compact_lsp.DidChangeOpenElsewhereParams
---@field sessionId string
---@field openElsewhere {pid: integer?, host: string?}? absent: no other window's server writes it now

---@class compact_lsp.ChatResult
---@field stopReason string end_turn, max_tokens, ..., error, cancelled, max_rounds
---@field usage compact_lsp.Usage
---@field error string?
---@field errorKind string? auth, rate_limit, overloaded, timeout, connection, api, bad_response, internal

---@class compact_lsp.ChatTextEvent
---@field sessionId string
---@field kind 'text'
---@field text string

---@class compact_lsp.ChatToolUseEvent
---@field sessionId string
---@field kind 'tool_use'
---@field id string
---@field name string
---@field input table

---@class compact_lsp.ChatToolResultEvent
---@field sessionId string
---@field kind 'tool_result'
---@field toolUseId string
---@field name string
---@field content string
---@field isError boolean

---@class compact_lsp.ChatStatusEvent
---@field sessionId string
---@field kind 'status'
---@field message string

---@class compact_lsp.ChatErrorEvent
---@field sessionId string
---@field kind 'error'
---@field message string
---@field errorKind string?

---@alias compact_lsp.ChatEventParams compact_lsp.ChatTextEvent|compact_lsp.ChatToolUseEvent|compact_lsp.ChatToolResultEvent|compact_lsp.ChatStatusEvent|compact_lsp.ChatErrorEvent
