--- `:CompactChat`: a prompt buffer for the built-in agent. Each line typed at the `> ` prompt is sent with
--- `compact/chat`; the answer streams in from `compact/chatEvent`. <C-c> cancels the running turn. The buffer has
--- no file (unlisted, never "modified"), so it never stops `:qa`.
local client = require('compact_lsp.client')
local render = require('compact_lsp.chat_render')
local state = require('compact_lsp.state')

local M = {}

M.prompt = '> '

--- A turn the server refuses as busy right after a cancel is retried this long (the old turn is winding down).
local BUSY_RETRY_MS = 5000
local BUSY_RETRY_EVERY_MS = 100

--- The chat buffer of a session, if it is still there.
---@param session_id string?
---@return integer?
function M.buffer(session_id)
  local buf = session_id and state.chats[session_id]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
  return nil
end

---@param pattern string
---@param data table
local function emit(pattern, data)
  require('compact_lsp.handlers').emit(pattern, data)
end

--- End a turn once, however it ended (answer, error, cancel, server gone): the turn state goes, a mark closes it.
---@param session_id string
---@param turn compact_lsp.ChatTurn
---@param outcome {result: table?, error: string?, cancelled: boolean?}
local function finish(session_id, turn, outcome)
  if state.turns[session_id] ~= turn then
    return -- already ended (a late answer after a cancel)
  end
  state.turns[session_id] = nil
  local result = outcome.result or {}
  if type(result.usage) == 'table' and result.usage.total then
    state.usage[session_id] = result.usage
    vim.cmd.redrawstatus({ bang = true })
  end
  local buf = M.buffer(session_id)
  if buf then
    local lines = {}
    if outcome.error then
      table.insert(lines, '  ! ' .. outcome.error)
    end
    local stop = outcome.cancelled and 'cancelled' or outcome.error and 'error' or result.stopReason
    table.insert(lines, render.turn_end(stop, result.usage))
    table.insert(lines, '')
    render.append_lines(buf, lines)
  end
  emit('CompactLspChatDone', {
    session_id = session_id,
    result = outcome.result,
    error = outcome.error,
    cancelled = outcome.cancelled or (result.stopReason == 'cancelled') or nil,
  })
end

--- The path a tool call writes or reads, absolute.
---@param turn compact_lsp.ChatTurn
---@param input any
---@return string?
local function call_path(turn, input)
  local path = type(input) == 'table' and input.file_path
  if type(path) ~= 'string' or path == '' then
    return nil
  end
  return require('compact_lsp.edits').absolute(path, turn.root)
end

--- Tool calls seen by the plugin: reads are watched for changes on disk, writes reload the buffers they touch.
---@param turn compact_lsp.ChatTurn
---@param ev table
local function track_tools(turn, ev)
  local edits = require('compact_lsp.edits')
  local watch = require('compact_lsp.watch')
  if ev.kind == 'tool_use' then
    turn.calls[ev.id or ''] = { name = ev.name, input = ev.input }
    turn.last_call = { name = ev.name, input = ev.input }
    local path = call_path(turn, ev.input)
    if path and edits.writing_tools[ev.name] then
      watch.own_write(path)
    end
  elseif ev.kind == 'tool_result' then
    local call = turn.calls[ev.toolUseId or ''] or {}
    local path = call_path(turn, call.input)
    if not path or ev.isError or ev.is_error then
      return
    end
    if edits.writing_tools[call.name] then
      watch.own_write(path)
      local outcome = edits.after_agent_write(path, call.name, call.input)
      if outcome then
        emit('CompactLspBufferSync', { path = path, outcome = outcome })
      end
    elseif call.name == 'read_file' then
      watch.read(path)
    end
  end
end

--- Render one `compact/chatEvent` in its session's chat buffer.
---@param ev compact_lsp.ChatEventParams|table
function M.on_event(ev)
  local turn = state.turns[ev.sessionId]
  if turn then
    track_tools(turn, ev)
  end
  local buf = M.buffer(ev.sessionId)
  if not buf then
    return
  end
  if ev.kind == 'text' then
    render.append_text(buf, turn, ev.text or ev.delta or '')
    return
  end
  if turn then
    turn.open_text = false
  end
  render.append_lines(buf, render.event_lines(ev))
end

--- Send `text` as one user turn of `session_id` (whose buffer already shows it).
---@param session_id string
---@param text string
---@param started integer? vim.uv.now() of the first attempt (busy retries)
local function request_turn(session_id, text, started)
  local buf = M.buffer(session_id)
  local c, err = client.ensure()
  if not c then
    local turn = state.turns[session_id]
    if turn then
      finish(session_id, turn, { error = err or 'no server' })
    end
    return
  end
  local turn = state.turns[session_id]
  if not turn then
    return
  end
  turn.client_id, turn.root = c.id, c.root_dir
  local ok, request_id = c:request('compact/chat', { sessionId = session_id, text = text }, function(rpc_err, result)
    if state.turns[session_id] ~= turn then
      return
    end
    local busy = rpc_err and type(rpc_err.data) == 'table' and rpc_err.data.kind == 'busy'
    local cancelled_at = state.cancelled_at[session_id]
    if busy and cancelled_at and vim.uv.now() - (started or 0) < BUSY_RETRY_MS then
      -- our own cancelled turn is still winding down on the server: try again shortly
      vim.defer_fn(function()
        request_turn(session_id, text, started)
      end, BUSY_RETRY_EVERY_MS)
      return
    end
    finish(session_id, turn, { result = result, error = rpc_err and client.message(rpc_err):gsub('^compact%-lsp: ', '') })
  end)
  if ok then
    turn.request_id = request_id
  else
    finish(session_id, turn, { error = 'the server is not running' })
  end
end

--- Send one user turn. `echoed`: the prompt line already shows the text (typed at the `> ` prompt).
---@param session_id string
---@param text string
---@param echoed boolean?
function M.send(session_id, text, echoed)
  if text:match('^%s*$') then
    return
  end
  if state.turns[session_id] then
    vim.notify('compact-lsp: the agent is still answering (<C-c> cancels)', vim.log.levels.WARN)
    return
  end
  local buf = M.buffer(session_id)
  if buf and not echoed then
    render.append_lines(buf, render.you_lines(text))
  end
  ---@type compact_lsp.ChatTurn
  local turn = { open_text = false, calls = {} }
  state.turns[session_id] = turn
  request_turn(session_id, text, vim.uv.now())
end

--- Cancel the running turn of a session. Neovim drops the answer to a cancelled request, so the turn ends here.
---@param session_id string?
function M.cancel(session_id)
  session_id = session_id or state.session_id
  local turn = session_id and state.turns[session_id]
  if not turn then
    return
  end
  local c = turn.client_id and vim.lsp.get_client_by_id(turn.client_id)
  if c and turn.request_id then
    c:cancel_request(turn.request_id)
  end
  state.cancelled_at[session_id] = vim.uv.now()
  finish(session_id, turn, { cancelled = true })
end

--- Title of a session the chat creates: the `chat.title` option, else the first message.
---@param text string
---@return string
local function title_for(text)
  local fixed = require('compact_lsp.config').options.chat.title
  if fixed then
    return fixed
  end
  local first = vim.trim(text:match('^[^\n]*') or '')
  return vim.fn.strchars(first) > 60 and (vim.fn.strcharpart(first, 0, 59) .. '…') or first
end

--- The chat buffer's name: `compact-lsp://chat/<session title>` (its id while it has no title), unique.
---@param buf integer
---@param session_id string?
---@param title string? the title when the session list does not have it yet (a session just made)
function M.name_buffer(buf, session_id, title)
  title = title or (session_id and require('compact_lsp.sessions').title(session_id))
  local label = (title and title ~= '') and title or session_id or 'new'
  label = vim.fn.strchars(label) > 60 and (vim.fn.strcharpart(label, 0, 59) .. '…') or label
  local name, n = 'compact-lsp://chat/' .. label, 1
  while true do
    local other = vim.fn.bufnr('^' .. vim.fn.escape(name, '\\/.*$^~[]') .. '$')
    if other == -1 or other == buf then
      break
    end
    n = n + 1
    name = string.format('compact-lsp://chat/%s (%d)', label, n)
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
end

--- Bind a chat buffer to its session: name, lookups.
---@param buf integer
---@param session_id string
---@param title string?
local function bind(buf, session_id, title)
  state.chats[session_id] = buf
  vim.b[buf].compact_lsp_session = session_id
  M.name_buffer(buf, session_id, title)
end

--- What <CR> at the prompt does: the typed line becomes "You: …", and the turn starts (creating the session
--- first when this chat has none yet).
---@param buf integer
---@param text string
local function submit(buf, text)
  if text:match('^%s*$') then
    return
  end
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 2, n - 1, false, {})
  render.settle(buf)
  local session_id = vim.b[buf].compact_lsp_session
  if session_id then
    render.append_lines(buf, render.you_lines(text))
    return M.send(session_id, text, true)
  end
  render.append_lines(buf, render.you_lines(text))
  local title = title_for(text)
  require('compact_lsp.sessions').create(title, function(err, new_id)
    if err or not new_id then
      render.append_lines(buf, { '  ! ' .. require('compact_lsp.words').bare(err or 'could not create a session'), '' })
      return
    end
    bind(buf, new_id, title)
    if state.new_chat == buf then
      state.new_chat = nil
    end
    M.send(new_id, text, true)
  end)
end

--- Markdown in the chat as CodeCompanion shows it: treesitter's markdown highlighting, with `**`, backticks and
--- link targets concealed (off the cursor line). Without the parser the text stays plain.
---@param buf integer
local function markdown(buf)
  pcall(vim.treesitter.language.register, 'markdown', 'compact_chat')
  pcall(vim.treesitter.start, buf, 'markdown')
end

--- The lines at the top of a followed Claude Code session's chat: read-only, and the one action.
M.READ_ONLY_HEADER = {
  "Claude Code's session: read-only here, Claude Code owns it.",
  'Import to continue: ' .. require('compact_lsp.words').IMPORT .. ' (your own copy)',
  '',
}

--- A chat of a followed Claude Code session: its history, no prompt, no input.
---@param session_id string
---@return integer buf
local function create_read_only(session_id)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'compact_chat'
  vim.b[buf].compact_lsp_read_only = true
  bind(buf, session_id)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.READ_ONLY_HEADER)
  render.mark_read_only(buf, #M.READ_ONLY_HEADER - 1)
  vim.bo[buf].modifiable = false
  markdown(buf)
  local function refuse()
    require('compact_lsp.words').notify(
      'compact-lsp: read-only: ' .. require('compact_lsp.words').IMPORT .. ' continues it here as your own copy'
    )
  end
  for _, lhs in ipairs({ 'i', 'a', 'I', 'A', 'o', 'O', '<CR>' }) do
    vim.keymap.set('n', lhs, refuse, { buffer = buf, nowait = true, desc = 'Read-only: :Compact import continues it' })
  end
  require('compact_lsp.chat_keys').attach(buf, { cancel = function() end, read_only = true })
  return buf
end

--- Create a chat buffer (bound to `session_id` when given, else to the session its first message creates) and
--- start the server if none runs (no file needs to be open).
---@param session_id string?
---@return integer buf
local function create_buffer(session_id)
  if session_id and require('compact_lsp.sessions').read_only(session_id) then
    return create_read_only(session_id)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'prompt'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'compact_chat'
  if session_id then
    bind(buf, session_id)
  else
    pcall(vim.api.nvim_buf_set_name, buf, 'compact-lsp://chat/new')
  end
  vim.fn.prompt_setprompt(buf, M.prompt)
  vim.fn.prompt_setcallback(buf, function(text)
    submit(buf, text)
  end)
  local function interrupt()
    M.cancel(vim.b[buf].compact_lsp_session)
  end
  vim.fn.prompt_setinterrupt(buf, interrupt)
  require('compact_lsp.chat_keys').attach(buf, { cancel = interrupt, read_only = false })
  -- The prompt shows at once, not only after `i`.
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { M.prompt })
  render.settle(buf)
  markdown(buf)
  local group = vim.api.nvim_create_augroup('compact_lsp.chat.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = buf,
    callback = function()
      render.settle(buf)
    end,
  })
  local _, err = client.ensure()
  if err then
    render.append_lines(buf, { '  ! ' .. require('compact_lsp.words').bare(err), '' })
  end
  return buf
end

---@param buf integer
local function show(buf)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
    return
  end
  vim.cmd('botright vsplit')
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.wrap = true
  vim.wo.linebreak = true
  vim.wo.number = false
  vim.wo.relativenumber = false
  vim.wo.conceallevel = 2
  vim.wo.concealcursor = 'nc'
end

local submit_text

--- Open (or focus) the chat of the current session: the one chosen with `:Compact session`, else the server's
--- current session (its history is shown), else a new chat whose first message creates a session. With
--- `opts.new` (`:CompactChat!`), a new chat in any case. Then send `text` if given.
---@param text string?
---@param opts {new: boolean?, on_ready: fun(session_id: string?, buf: integer)?}?
function M.open(text, opts)
  opts = opts or {}
  local sessions = require('compact_lsp.sessions')
  local function ready(session_id)
    local buf = M.buffer(session_id)
    local function then_send()
      if text and text ~= '' then
        if vim.b[buf].compact_lsp_read_only then
          vim.notify(require('compact_lsp.words').error({ message = '', data = { kind = 'read_only', owner = { agent = 'Claude Code' } } }), vim.log.levels.WARN)
        else
          submit_text(buf, text)
        end
      end
      if opts.on_ready then
        opts.on_ready(vim.b[buf].compact_lsp_session, buf)
      end
    end
    if not buf then
      local pending = state.new_chat and vim.api.nvim_buf_is_valid(state.new_chat) and state.new_chat or nil
      buf = (not session_id and pending) or create_buffer(session_id)
      if session_id then
        show(buf)
        -- the history first, then what this command sends: "You: …" comes after it, in order
        return sessions.show_history(session_id, buf, then_send)
      end
      state.new_chat = buf
    end
    show(buf)
    then_send()
  end
  if opts.new then
    return ready(nil)
  end
  sessions.current(function(session_id)
    if session_id and #state.sessions == 0 then
      -- whether it is read-only is in the session list
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

--- Refresh a followed session's chat (Claude Code wrote to it): its history again, below the header.
---@param session_id string
function M.refresh_read_only(session_id)
  local buf = M.buffer(session_id)
  if not buf or not vim.b[buf].compact_lsp_read_only or vim.b[buf].compact_lsp_refreshing then
    return
  end
  vim.b[buf].compact_lsp_refreshing = true
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, #M.READ_ONLY_HEADER, -1, false, {})
  vim.bo[buf].modifiable = false
  require('compact_lsp.sessions').show_history(session_id, buf, function()
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].compact_lsp_refreshing = false
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
      local old = M.buffer(session_id)
      local win = old and vim.fn.bufwinid(old) or -1
      if win ~= -1 then
        vim.api.nvim_set_current_win(win)
      end
      local done = function()
        if cb then
          cb(nil, new_id, result)
        end
      end
      local copy = M.buffer(new_id)
      if copy then
        show(copy)
        return done()
      end
      copy = create_buffer(new_id)
      if win ~= -1 then
        vim.api.nvim_win_set_buf(win, copy)
      end
      show(copy)
      if old then -- the read-only chat is replaced by the copy's
        state.chats[session_id] = nil
        pcall(vim.api.nvim_buf_delete, old, { force = true })
        M.name_buffer(copy, new_id)
      end
      sessions.show_history(new_id, copy, done)
    end)
  end)
end

--- Send `text` from a command (`:CompactChat text`) as if typed at the prompt.
---@param buf integer
---@param text string
submit_text = function(buf, text)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 1, n, false, { M.prompt .. (text:match('^[^\n]*') or ''), M.prompt })
  submit(buf, text)
end

--- The server of a chat stopped (a crash, a reinstall): its running turn ends with an error instead of hanging.
---@param client_id integer
function M.client_gone(client_id)
  for session_id, turn in pairs(state.turns) do
    if turn.client_id == client_id then
      finish(session_id, turn, { error = 'the server stopped; the turn was not finished' })
    end
  end
end

return M
