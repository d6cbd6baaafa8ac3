---@meta
-- LuaCATS shapes of the compact-lsp protocol (docs/protocol.md, docs/protocol.schema.json). Annotations only;
-- field names are the wire's, camelCase.

---@alias compact_lsp.Level 'ok'|'warning'|'critical'

---@class compact_lsp.Usage
---@field total integer tokens in the context the model will see next
---@field contextWindow integer
---@field percent number
---@field autoCompactThreshold integer?
---@field warningThreshold integer?
---@field level compact_lsp.Level
---@field byKind table<string, integer> tokens by kind: system, userText, assistantText, toolUse, toolResult, ...
---@field estimated integer?
---@field reported integer?

---@class compact_lsp.SessionInfo
---@field sessionId string
---@field title string the given title, else the user's first request; "" with no user text yet
---@field source 'chat'|'import'|'api'
---@field createdAt string ISO 8601 UTC
---@field updatedAt string ISO 8601 UTC
---@field messages integer messages in the model's current view
---@field tokens integer the context's total tokens
---@field current boolean the workspace's current session
---@field damaged boolean loading skipped records
---@field usage compact_lsp.Usage

---@class compact_lsp.CurrentSession
---@field sessionId string|vim.NIL null when the workspace has no session yet

---@class compact_lsp.ReadFile
---@field path string
---@field kind 'read'|'write'|'edit'|'editor'?
---@field freshness 'fresh'|'stale'|'deleted'|'unknown'
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
---@field readFiles compact_lsp.ReadFile[]
---@field lastMicrocompaction compact_lsp.MicrocompactResult?
---@field lastCompaction compact_lsp.CompactResult?
---@field compacting boolean
---@field canUndo boolean
---@field sessionNotes table?
---@field biggestItems compact_lsp.BiggestItem[]?

--- `changed: false`: a request that had nothing to do, or that the user cancelled (not an error).
---@class compact_lsp.Outcome
---@field changed false
---@field kind 'nothing_to_clear'|'nothing_to_undo'|'not_smaller'|'empty'|'cancelled'
---@field reason string
---@field cancelled boolean?
---@field tokensBefore integer?
---@field tokensAfter integer?

---@class compact_lsp.MicrocompactResult
---@field changed boolean
---@field trigger string
---@field tokensBefore integer
---@field tokensAfter integer
---@field tokensSaved integer
---@field cleared compact_lsp.ClearedResult[]
---@field protected {toolUseId: string, path: string?, paths: string[]}[]
---@field evictedReadPaths string[]
---@field unresolved integer|table?
---@field mediaCleared integer?
---@field createdAt string|number?

---@class compact_lsp.CompactResult
---@field changed boolean
---@field tokensBefore integer
---@field tokensAfter integer
---@field summarizer 'anthropic'|'offline'|'session-memory'
---@field fallback boolean the API failed and the offline summary was used
---@field fallbackReason string? why (null when `fallback` is false)
---@field rehydrated {kind: string, path: string?, tokens: integer}[]
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

---@class compact_lsp.RehydrationPreview
---@field budget {maxFiles: integer, tokenBudget: integer, maxTokensPerFile: integer}
---@field candidates compact_lsp.RehydrationCandidate[]

--- One entry of `compact/transcript`: `kind` says which fields it has.
---@class compact_lsp.TranscriptEntry
---@field kind 'message'|'compaction'|'microcompaction'|'undo'
---@field at string ISO 8601 UTC
---@field message {role: 'user'|'assistant', content: string|table[]}? kind message
---@field trigger string? compaction: auto|manual; microcompaction: idle|size|forced
---@field summarizer string? compaction
---@field fallback boolean? compaction
---@field fallbackReason string? compaction
---@field tokensBefore integer? compaction, microcompaction
---@field tokensAfter integer? compaction, microcompaction
---@field tokensSaved integer? microcompaction
---@field cleared compact_lsp.ClearedResult[]? microcompaction
---@field protected table[]? microcompaction
---@field evictedReadPaths string[]? microcompaction
---@field boundaryId string? compaction, undo

---@class compact_lsp.Transcript
---@field sessionId string
---@field entries compact_lsp.TranscriptEntry[]

---@class compact_lsp.DidCompact
---@field sessionId string
---@field kind 'micro'|'full'|'undo'
---@field trigger 'manual'|'auto'|'idle'|'size'|'forced'
---@field tokensBefore integer
---@field tokensAfter integer
---@field summarizer string?
---@field fallback boolean
---@field fallbackReason string?

---@class compact_lsp.ChatResult
---@field stopReason string end_turn, max_tokens, ..., error, cancelled, max_rounds
---@field usage compact_lsp.Usage
---@field error string?

---@class compact_lsp.ChatEvent
---@field sessionId string
---@field kind 'text'|'tool_use'|'tool_result'|'status'|'error'
---@field text string? text
---@field id string? tool_use
---@field name string? tool_use, tool_result
---@field input table? tool_use
---@field toolUseId string? tool_result
---@field content string? tool_result
---@field isError boolean? tool_result
---@field message string? status, error
---@field errorKind string? error
