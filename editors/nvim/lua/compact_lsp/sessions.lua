--- Sessions as the server keeps them: the workspace's current session (`compact/currentSession`, persisted by the
--- server across restarts), choosing one (`compact/selectSession`), the list with titles (`compact/sessions`) and a
--- session's history for the chat (`compact/transcript`).
local client = require('compact_lsp.client')
local format = require('compact_lsp.format')
local state = require('compact_lsp.state')

local M = {}

--- Agents' names by a session's `source`, for a server that does not send `owner` yet.
M.AGENTS = { ['claude-code'] = 'Claude Code', codex = 'Codex', ['qwen-code'] = 'Qwen Code', ['gemini-cli'] = 'Gemini CLI' }

--- How long `<Tab>` completion may wait for the session list.
local COMPLETE_TIMEOUT_MS = 800

---@param err lsp.ResponseError?
---@return boolean
local function unknown_method(err)
  return err ~= nil and err.code == -32601
end

--- Make `session_id` the one the status line and the commands show, and redraw.
---@param session_id string?
function M.set_current(session_id)
  state.session_id = session_id
  vim.cmd.redrawstatus({ bang = true })
end

--- Remember the server's session list: the current one, and each one's usage for the status line.
---@param items compact_lsp.SessionInfo[]
function M.remember(items)
  state.sessions = items
  for _, item in ipairs(items) do
    if type(item.usage) == 'table' and item.usage.total and not state.usage[item.sessionId] then
      state.usage[item.sessionId] = item.usage
    end
    if item.current then
      M.set_current(item.sessionId)
    end
  end
end

--- Fetch the session list (`compact/sessions`) and remember it; `cb(err, items)`.
---@param cb fun(err: lsp.ResponseError?, items: compact_lsp.SessionInfo[]?)?
function M.refresh(cb)
  client.request('compact/sessions', vim.empty_dict(), function(err, items)
    if not err and type(items) == 'table' then
      M.remember(items)
    end
    if cb then
      cb(err, items)
    end
  end)
end

--- The current session: the one this Neovim knows, else the server's (nil when the workspace has none).
--- `cb(session_id, err)`: `err` when the server could not be asked (it is not running, say).
---@param cb fun(session_id: string?, err: lsp.ResponseError?)
function M.current(cb)
  if state.session_id then
    return cb(state.session_id, nil)
  end
  client.request('compact/currentSession', vim.empty_dict(), function(err, result)
    local id = not err and type(result) == 'table' and result.sessionId or nil
    if id == vim.NIL then
      id = nil
    end
    if id then
      M.set_current(id)
    end
    cb(id, not unknown_method(err) and err or nil)
  end)
end

--- Make `session_id` the current session on the server too (it then reports its usage).
---@param session_id string
---@param cb fun(err: lsp.ResponseError?)?
function M.select(session_id, cb)
  client.request('compact/selectSession', { sessionId = session_id }, function(err)
    if not err or unknown_method(err) then
      M.set_current(session_id)
      err = nil
    end
    if cb then
      cb(err)
    end
  end)
end

--- Create a session for a chat; it becomes the current one.
---@param title string
---@param cb fun(err: string?, session_id: string?)
function M.create(title, cb)
  client.request('compact/newSession', { title = title, source = 'chat' }, function(err, result)
    if err or type(result) ~= 'table' or not result.sessionId then
      return cb(err and client.message(err) or 'could not create a session', nil)
    end
    M.set_current(result.sessionId)
    cb(nil, result.sessionId)
  end)
end

--- Show a session's history in its chat buffer, above the prompt: messages, then compaction markers where
--- the model's view was compacted.
---@param session_id string
---@param buf integer
---@param cb fun()?
function M.show_history(session_id, buf, cb)
  -- a newer request for this buffer (a followed session's refresh while the first read is on its way) wins: the
  -- older answer is not appended as well
  local asked = (vim.b[buf].compact_lsp_history_asked or 0) + 1
  vim.b[buf].compact_lsp_history_asked = asked
  -- the labels depend on the session list (an import's agent): read it first when it does not hold the session
  if not vim.b[buf].compact_lsp_owner and not M.known(session_id) then
    return M.refresh(function()
      M.render_history(session_id, buf, asked, cb)
    end)
  end
  M.render_history(session_id, buf, asked, cb)
end

--- The history's lines for `show_history`'s request number `asked` (an older answer is dropped).
---@param session_id string
---@param buf integer
---@param asked integer
---@param cb fun()?
function M.render_history(session_id, buf, asked, cb)
  client.request('compact/transcript', { sessionId = session_id }, function(err, result)
    local render = require('compact_lsp.chat_render')
    if vim.api.nvim_buf_is_valid(buf) and vim.b[buf].compact_lsp_history_asked == asked then
      if err and not unknown_method(err) then
        render.append_lines(buf, { '  ! history not available: ' .. client.message(err):gsub('^compact%-lsp: ', ''), '' })
      elseif not err and type(result) == 'table' then
        -- an imported copy's earlier answers are its agent's ("Codex: "); what our agent answers since is ours
        local lines = render.history_lines(result.entries, vim.b[buf].compact_lsp_owner or M.imported_from(session_id))
        if #lines > 0 then
          table.insert(lines, '')
          render.append_lines(buf, lines)
        end
      end
    end
    require('compact_lsp.handlers').emit('CompactLspHistory', { session_id = session_id, error = err and err.message })
    if cb then
      cb()
    end
  end)
end

--- How long ago an ISO 8601 UTC time was: "5m ago", "3h ago", "2d ago".
---@param iso string?
---@return string
local function ago(iso)
  if type(iso) ~= 'string' then
    return ''
  end
  local y, mo, d, h, mi, s = iso:match('^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)')
  if not y then
    return ''
  end
  local utc_now = os.time(os.date('!*t') --[[@as osdateparam]])
  local t = os.time({ year = y, month = mo, day = d, hour = h, min = mi, sec = s })
  local secs = math.max(0, utc_now - t)
  if secs < 60 then
    return 'just now'
  elseif secs < 3600 then
    return string.format('%dm ago', math.floor(secs / 60))
  elseif secs < 86400 then
    return string.format('%dh ago', math.floor(secs / 3600))
  end
  return string.format('%dd ago', math.floor(secs / 86400))
end

--- One line per session in the picker: title, where it came from, size, age and marks.
---@param item compact_lsp.SessionInfo
---@return string
function M.describe(item)
  local title = (item.title and item.title ~= '') and item.title or '(untitled)'
  local parts = { title }
  local details = {}
  if item.source then
    table.insert(details, item.owner or M.AGENTS[item.source] or item.source)
  end
  if item.messages then
    table.insert(details, string.format('%d message%s', item.messages, item.messages == 1 and '' or 's'))
  end
  if item.tokens then
    table.insert(details, format.tokens(item.tokens) .. ' tokens')
  end
  local age = ago(item.updatedAt)
  if age ~= '' then
    table.insert(details, age)
  end
  table.insert(parts, table.concat(details, ' · '))
  if item.current then
    table.insert(parts, '[current]')
  end
  if item.readOnly then
    table.insert(parts, '[read-only]')
  end
  if item.damaged then
    table.insert(parts, '[damaged]')
  end
  table.insert(parts, item.sessionId)
  return table.concat(parts, '  ')
end

--- Session ids for `<Tab>` after `:Compact session`: fetched now (briefly), else the last list seen.
---@return string[]
function M.complete_ids()
  local c = client.get()
  if c and c.initialized then
    local response = c:request_sync('compact/sessions', vim.empty_dict(), COMPLETE_TIMEOUT_MS)
    if response and not response.err and type(response.result) == 'table' then
      state.sessions = response.result
    end
  end
  local ids = {}
  for _, item in ipairs(state.sessions or {}) do
    table.insert(ids, item.sessionId)
  end
  for id in pairs(state.usage) do
    if not vim.tbl_contains(ids, id) then
      table.insert(ids, id)
    end
  end
  return ids
end

--- The title of a known session, if any.
---@param session_id string?
---@return string?
--- Give a session a new title (`compact/renameSession`), then list the sessions again so it shows.
---@param session_id string
---@param title string
---@param cb fun(err: lsp.ResponseError?)
function M.rename(session_id, title, cb)
  client.request('compact/renameSession', { sessionId = session_id, title = title }, function(err)
    if err then
      return cb(err)
    end
    M.refresh(function()
      cb(nil)
    end)
  end)
end

--- The item the session list this Neovim holds has for the session, or nil.
---@param session_id string?
---@return table?
local function listed(session_id)
  for _, item in ipairs(state.sessions or {}) do
    if item.sessionId == session_id then
      return item
    end
  end
  return nil
end

function M.title(session_id)
  local item = listed(session_id)
  return item and item.title
end

--- The agent that owns a known read-only session, in its words ("Codex"), as the server names it; nil for the
--- user's own sessions.
---@param session_id string?
---@return string?
function M.owner(session_id)
  local item = listed(session_id)
  if item and item.readOnly then
    return item.owner or M.AGENTS[item.source] or 'another agent'
  end
  return nil
end

--- Who writes the session when another editor window's server does (`openElsewhere`: {pid, host?}), else nil.
---@param session_id string?
---@return {pid: integer?, host: string?}?
function M.open_elsewhere(session_id)
  local item = listed(session_id)
  return item and type(item.openElsewhere) == 'table' and item.openElsewhere or nil
end

--- Another editor window's server took the session (`owner`), or let it go (nil), as the server said.
---@param session_id string
---@param owner {pid: integer?, host: string?}?
function M.set_open_elsewhere(session_id, owner)
  local item = listed(session_id)
  if item then
    item.openElsewhere = owner
  end
end

--- Whether the session list this Neovim holds names the session.
---@param session_id string?
---@return boolean
function M.known(session_id)
  return listed(session_id) ~= nil
end

--- The agent a known session was imported from ("Codex"), as the server names it; nil for any other session.
---@param session_id string?
---@return string?
function M.imported_from(session_id)
  local item = listed(session_id)
  return item and item.importedFrom
end

--- Whether a known session is read-only here (an agent's followed sessions: the agent owns their context).
---@param session_id string?
---@return boolean
function M.read_only(session_id)
  local item = listed(session_id)
  return item ~= nil and item.readOnly == true
end

return M
