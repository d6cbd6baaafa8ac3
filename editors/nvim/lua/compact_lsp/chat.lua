--- `:CompactChat` and `:CompactSend`: the chat of the current session opened (or a new one), with text to send;
--- a followed session's chat refreshed when its agent writes, and "Import to continue" switching it to a managed
--- copy. Each line typed at the `> ` prompt is sent with `compact/chat`; the answer streams in from
--- `compact/chatEvent`; <C-c> cancels the running turn. The buffer is chat_buffer.lua's, the turns chat_turn.lua's.
local chat_buffer = require('compact_lsp.chat_buffer')
local client = require('compact_lsp.client')
local state = require('compact_lsp.state')

local M = {}

--- Open (or focus) the chat of the current session: the one chosen with `:Compact session`, else the server's
--- current session (its history is shown), else a new chat whose first message creates a session. With
--- `opts.new` (`:CompactChat!`), a new chat in any case. Then send `text` if given.
---@param text string?
---@param opts {new: boolean?, on_ready: fun(session_id: string?, buf: integer)?}?
function M.open(text, opts)
  opts = opts or {}
  local sessions = require('compact_lsp.sessions')
  local function ready(session_id)
    local buf = state.chat_buffer(session_id)
    local function then_send()
      if text and text ~= '' then
        if vim.b[buf].compact_lsp_read_only then
          local owner = vim.b[buf].compact_lsp_elsewhere
            or { agent = vim.b[buf].compact_lsp_owner or sessions.owner(session_id) }
          vim.notify(require('compact_lsp.words').error({ message = '', data = { kind = 'read_only', owner = owner } }), vim.log.levels.WARN)
        else
          chat_buffer.submit_text(buf, text)
        end
      end
      if opts.on_ready then
        opts.on_ready(vim.b[buf].compact_lsp_session, buf)
      end
    end
    if not buf then
      local pending = state.new_chat and vim.api.nvim_buf_is_valid(state.new_chat) and state.new_chat or nil
      buf = (not session_id and pending) or chat_buffer.create(session_id)
      if session_id then
        chat_buffer.show(buf, true)
        -- the history first, then what this command sends: "You: …" comes after it, in order
        return sessions.show_history(session_id, buf, then_send)
      end
      state.new_chat = buf
    end
    chat_buffer.show(buf, true)
    then_send()
  end
  if opts.new then
    return ready(nil)
  end
  sessions.current(function(session_id)
    if session_id and not state.chat_buffer(session_id) then
      -- whether it is read-only (an agent's, or another editor window writes it) is in the session list, as now
      return sessions.refresh(function()
        ready(session_id)
      end)
    end
    ready(session_id)
  end)
end

--- `:CompactSend [question]`: lines `first`..`last` of the current buffer (a Visual selection, or the whole
--- buffer) go to the chat of the current session as a fenced block named by its file and lines, after the
--- question if one is given.
---@param first integer
---@param last integer
---@param question string?
function M.send_range(first, last, question)
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, first - 1, last, false)
  local name = vim.api.nvim_buf_get_name(buf)
  local where = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or '[No Name]'
  local span = first == last and ('line ' .. first) or string.format('lines %d-%d', first, last)
  local text = table.concat({
    (question and question ~= '') and question or 'About this code:',
    '',
    string.format('`%s` %s:', where, span),
    '```' .. (vim.bo[buf].filetype or ''),
    table.concat(lines, '\n'),
    '```',
  }, '\n')
  M.open(text)
end

--- Refresh a followed session's chat (its agent wrote to it): its history again, below the header. A window that
--- showed the end of it follows the new activity; one scrolled back stays where it was.
---@param session_id string
function M.refresh_read_only(session_id)
  local buf = state.chat_buffer(session_id)
  if not buf or not vim.b[buf].compact_lsp_read_only or vim.b[buf].compact_lsp_refreshing then
    return
  end
  vim.b[buf].compact_lsp_refreshing = true
  local last = vim.api.nvim_buf_line_count(buf)
  local kept = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local cursor = vim.api.nvim_win_get_cursor(win)
    kept[win] = cursor[1] < last and cursor or false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, chat_buffer.READ_ONLY_HEADER_LINES, -1, false, {})
  vim.bo[buf].modifiable = false
  require('compact_lsp.sessions').show_history(session_id, buf, function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    vim.b[buf].compact_lsp_refreshing = false
    local now = vim.api.nvim_buf_line_count(buf)
    for win, cursor in pairs(kept) do
      if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == buf then
        pcall(vim.api.nvim_win_set_cursor, win, cursor or { now, 0 })
      end
    end
  end)
end

--- "Import to continue": a managed copy of the followed session `session_id`, made current and opened in the
--- window of its read-only chat (or a new one). `cb(err, new_id)` when done.
---@param session_id string
---@param cb fun(err: lsp.ResponseError?, new_id: string?, result: table?)?
function M.continue_followed(session_id, cb)
  local sessions = require('compact_lsp.sessions')
  client.request('compact/importSession', { sessionId = session_id }, function(err, result)
    if err or type(result) ~= 'table' then
      return cb and cb(err or { message = 'the import gave no session' }, nil)
    end
    local new_id = result.sessionId
    sessions.set_current(new_id)
    sessions.refresh(function()
      local old = state.chat_buffer(session_id)
      local win = old and vim.fn.bufwinid(old) or -1
      if win ~= -1 then
        vim.api.nvim_set_current_win(win)
      end
      local done = function()
        if cb then
          cb(nil, new_id, result)
        end
      end
      local copy = state.chat_buffer(new_id)
      if copy then
        chat_buffer.show(copy)
        return done()
      end
      copy = chat_buffer.create(new_id)
      if win ~= -1 then
        vim.api.nvim_win_set_buf(win, copy)
      end
      chat_buffer.show(copy)
      if old then -- the read-only chat is replaced by the copy's
        state.chats[session_id] = nil
        pcall(vim.api.nvim_buf_delete, old, { force = true })
        chat_buffer.name_buffer(copy, new_id)
      end
      sessions.show_history(new_id, copy, done)
    end)
  end)
end

return M
