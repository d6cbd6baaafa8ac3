--- The plugin's state: one table, every field documented. Nothing else in the plugin keeps state.
---@class compact_lsp.State
---@field session_id string? the current session as this Neovim knows it (the server's, `compact/currentSession`)
---@field last_session string? session of the latest usage notification, never a followed one (the status line's fallback)
---@field usage table<string, compact_lsp.Usage> latest usage per session
---@field sessions compact_lsp.SessionInfo[] the latest `compact/sessions` list (completion, picker)
---@field progress table<string, {client_id: integer, token: integer|string, title: string?, message: string?, percentage: integer?}> running work-done progress, keyed by client id and token
---@field chats table<string, integer> chat buffer per session id
---@field new_chat integer? a chat buffer whose first message will create its session
---@field turns table<string, compact_lsp.ChatTurn> the running chat turn per session id
---@field adopted table<integer, boolean> clients given the open buffers and asked for the current session (client.adopt)
---@field queued table<string, string[]> messages typed while the session's turn runs, sent when it ends
---@field cancelled_at table<string, integer> when the user last cancelled a turn, per session (vim.uv.now())
---@field watched table<string, compact_lsp.Watched> files the agent read, watched for changes on disk
---@field own_writes table<string, integer> last write by the agent or Neovim itself, per absolute path
---@field warned_next table<string, 'near'|'off'> what the warning before an agent compacts last said, per session
---@field restarts integer[] when (vim.uv.now()) a running server that died was replaced, the last minute's
---@field failed_start string? why the server stopped as it started, as said to the user; no start is tried again (a file opened, a command) until :CompactInstall or setup()
local State = {
  session_id = nil,
  last_session = nil,
  usage = {},
  sessions = {},
  progress = {},
  chats = {},
  new_chat = nil,
  turns = {},
  queued = {},
  adopted = {},
  cancelled_at = {},
  watched = {},
  own_writes = {},
  warned_next = {},
  restarts = {},
  failed_start = nil,
}

---@class compact_lsp.ChatTurn
---@field client_id integer? the client the turn's request went to
---@field request_id integer?
---@field root string? the server's root (tool paths are relative to it)
---@field open_text boolean the last transcript line is streamed answer text that the next delta continues
---@field calls table<string, {name: string, input: table}> tool calls of the turn by id
---@field last_call {name: string, input: table}? the latest tool call (a permission prompt is about it)
---@field waiting boolean? the model has not answered yet (since the message, or the last tool result): the chat says it works

--- The session the status line and commands refer to: the current one, else the latest one heard from.
---@return string?
function State.current_session()
  return State.session_id or State.last_session
end

--- The chat buffer of a session, if it is still there.
---@param session_id string?
---@return integer?
function State.chat_buffer(session_id)
  local buf = session_id and State.chats[session_id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  return nil
end

---@return compact_lsp.Usage?
function State.current_usage()
  local session = State.current_session()
  return session and State.usage[session] or nil
end

return State
