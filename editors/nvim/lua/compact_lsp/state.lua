--- The plugin's state: one table, every field documented. Nothing else in the plugin keeps state.
---@class compact_lsp.State
---@field session_id string? session the commands act on; nil lets the server pick its most recently active one
---@field last_session string? session of the latest usage notification (what the status line shows by default)
---@field usage table<string, compact_lsp.Usage> latest usage per session
---@field progress table<string, {client_id: integer, token: integer|string, title: string?, message: string?, percentage: integer?}> running work-done progress, keyed by client id and token
---@field chats table<string, integer> chat buffer per session id
---@field turns table<string, compact_lsp.ChatTurn> the running chat turn per session id
local State = {
  session_id = nil,
  last_session = nil,
  usage = {},
  progress = {},
  chats = {},
  turns = {},
}

---@class compact_lsp.ChatTurn
---@field client_id integer
---@field request_id integer?
---@field open_text boolean the last transcript line is streamed answer text that the next delta continues


--- The session the status line and commands refer to: the tracked one, else the latest one heard from.
---@return string?
function State.current_session()
  return State.session_id or State.last_session
end

---@return compact_lsp.Usage?
function State.current_usage()
  local session = State.current_session()
  return session and State.usage[session] or nil
end

return State
