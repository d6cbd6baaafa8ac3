---@meta
-- LuaCATS shapes of the compact-lsp protocol (docs/protocol.md). Annotations only.

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

---@class compact_lsp.ReadFile
---@field path string
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
---@field tokens integer

---@class compact_lsp.Status
---@field sessionId string
---@field usage compact_lsp.Usage
---@field readFiles compact_lsp.ReadFile[]
---@field lastMicrocompaction table?
---@field lastCompaction table?
---@field compacting boolean
---@field biggestItems table[]? largest items in the context, when the server sends them

---@class compact_lsp.RehydrationCandidate
---@field path string
---@field score number
---@field tokens integer
---@field included boolean
---@field reason string?

---@class compact_lsp.RehydrationPreview
---@field budget integer|table
---@field candidates compact_lsp.RehydrationCandidate[]

---@class compact_lsp.ChatEvent
---@field sessionId string
---@field kind 'text'|'tool_use'|'tool_result'|'status'|'error'
---@field text string?
---@field name string?
---@field input table?
---@field message string?
