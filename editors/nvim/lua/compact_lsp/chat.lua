--- `:CompactChat`: a prompt buffer for the built-in agent. Each line typed at the `> ` prompt is sent with
--- `compact/chat`; the answer streams in from `compact/chatEvent`; permission prompts show inline and are
--- answered with `vim.ui.select`. <C-c> cancels the running turn.
local client = require('compact_lsp.client')
local format = require('compact_lsp.format')
local state = require('compact_lsp.state')

local M = {}

M.prompt = '> '

--- Lines of a permission question shown in the transcript.
local PROMPT_LINES = 20

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

--- Insert transcript lines above the prompt line.
---@param buf integer
---@param lines string[]
local function append_lines(buf, lines)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 1, n - 1, false, lines)
end

--- Continue the streamed answer: the first piece extends the last transcript line, the rest are new lines.
---@param buf integer
---@param turn compact_lsp.ChatTurn?
---@param text string
local function append_text(buf, turn, text)
  local pieces = vim.split(text, '\n', { plain = true })
  local n = vim.api.nvim_buf_line_count(buf)
  if turn and turn.open_text and n >= 2 then
    local last = vim.api.nvim_buf_get_lines(buf, n - 2, n - 1, false)[1] or ''
    vim.api.nvim_buf_set_lines(buf, n - 2, n - 1, false, { last .. pieces[1] })
    table.remove(pieces, 1)
  end
  if #pieces > 0 then
    append_lines(buf, pieces)
  end
  if turn then
    turn.open_text = true
  end
end

--- A short description of a tool call's input: its path, pattern or command.
---@param input any
---@return string
local function describe_input(input)
  if type(input) ~= 'table' then
    return ''
  end
  for _, key in ipairs({ 'file_path', 'path', 'pattern', 'command', 'query', 'topic' }) do
    if type(input[key]) == 'string' then
      local value = key:match('path') and format.path(input[key]) or input[key]
      return #value > 70 and (value:sub(1, 67) .. '...') or value
    end
  end
  return ''
end

--- First line of a tool result's text, for the compact transcript.
---@param ev table
---@return string
local function describe_result(ev)
  local text = ev.summary or ev.content or ev.text or ''
  if type(text) == 'table' then
    text = vim.iter(text)
      :map(function(block)
        return type(block) == 'table' and block.text or nil
      end)
      :join(' ')
  end
  local first = tostring(text):match('^[^\n]*') or ''
  return #first > 70 and (first:sub(1, 67) .. '...') or first
end

--- Render one `compact/chatEvent` in its session's chat buffer.
---@param ev compact_lsp.ChatEvent|table
function M.on_event(ev)
  local buf = M.buffer(ev.sessionId)
  if not buf then
    return
  end
  local turn = state.turns[ev.sessionId]
  if ev.kind == 'text' then
    append_text(buf, turn, ev.text or ev.delta or '')
    return
  end
  if turn then
    turn.open_text = false
  end
  if ev.kind == 'tool_use' then
    append_lines(buf, { string.format('  ⚙ %s %s', ev.name or 'tool', describe_input(ev.input)) })
  elseif ev.kind == 'tool_result' then
    local failed = ev.isError or ev.is_error
    append_lines(buf, { string.format('  %s %s', failed and '✗' or '↳', describe_result(ev)) })
  elseif ev.kind == 'status' then
    append_lines(buf, { '  · ' .. tostring(ev.message or ev.text or ev.status or '') })
  elseif ev.kind == 'error' then
    append_lines(buf, { '  ! ' .. tostring(ev.message or ev.text or 'error') })
  end
end

--- The chat buffer whose turn is waiting on the server (permission prompts belong to it).
---@return integer?
local function busy_buffer()
  for session_id in pairs(state.turns) do
    local buf = M.buffer(session_id)
    if buf then
      return buf
    end
  end
  return nil
end

---@param params lsp.ShowMessageRequestParams
function M.on_prompt(params)
  local buf = busy_buffer()
  if buf then
    for session_id, turn in pairs(state.turns) do
      if state.chats[session_id] == buf then
        turn.open_text = false
      end
    end
    -- The whole question (an edit's diff, a file's content), capped so a big write stays readable.
    local lines = vim.split(params.message or '', '\n', { plain = true })
    local shown = { '  ? ' .. lines[1] }
    for i = 2, math.min(#lines, PROMPT_LINES) do
      table.insert(shown, '    ' .. lines[i])
    end
    if #lines > PROMPT_LINES then
      table.insert(shown, string.format('    … %d more lines', #lines - PROMPT_LINES))
    end
    append_lines(buf, shown)
  end
end

---@param choice lsp.MessageActionItem|vim.NIL|nil
function M.on_prompt_answer(_, choice)
  local buf = busy_buffer()
  if buf then
    local title = type(choice) == 'table' and choice.title or 'dismissed'
    append_lines(buf, { '    → ' .. title })
  end
end

--- Send one user turn.
---@param session_id string
---@param text string
function M.send(session_id, text)
  local buf = M.buffer(session_id)
  if text:match('^%s*$') then
    return
  end
  if state.turns[session_id] then
    vim.notify('compact-lsp: the agent is still answering (<C-c> cancels)', vim.log.levels.WARN)
    return
  end
  local c, err = client.ensure(buf)
  if not c then
    vim.notify(err or 'compact-lsp: no server', vim.log.levels.ERROR)
    return
  end
  ---@type compact_lsp.ChatTurn
  local turn = { client_id = c.id, open_text = false }
  state.turns[session_id] = turn
  if buf then
    append_lines(buf, { 'You: ' .. text, 'Claude: ' })
    turn.open_text = true
  end
  local ok, request_id = c:request('compact/chat', { sessionId = session_id, text = text }, function(rpc_err, result)
    state.turns[session_id] = nil
    local b = M.buffer(session_id)
    if rpc_err then
      if b then
        append_lines(b, { '  ! ' .. (rpc_err.message or 'the turn failed') })
      end
    else
      result = result or {}
      if type(result.usage) == 'table' and result.usage.total then
        state.usage[session_id] = result.usage
        vim.cmd.redrawstatus({ bang = true })
      end
      if b then
        local usage = type(result.usage) == 'table' and result.usage.total
            and (' · ' .. format.tokens(result.usage.total) .. ' tokens')
          or ''
        append_lines(b, { string.format('  [%s%s]', tostring(result.stopReason or 'done'), usage), '' })
      end
    end
    require('compact_lsp.handlers').emit('CompactLspChatDone', {
      session_id = session_id,
      result = result,
      error = rpc_err and rpc_err.message or nil,
    })
  end, buf)
  if ok then
    turn.request_id = request_id
  else
    state.turns[session_id] = nil
  end
end

--- Cancel the running turn of a session (`$/cancelRequest`).
---@param session_id string?
function M.cancel(session_id)
  session_id = session_id or state.session_id
  local turn = session_id and state.turns[session_id]
  if not turn or not turn.request_id then
    return
  end
  local c = vim.lsp.get_client_by_id(turn.client_id)
  if c then
    c:cancel_request(turn.request_id)
  end
end

--- Create the prompt buffer of a session and attach it to the server (`vim.lsp.start` with `bufnr`,
--- since `vim.lsp.enable` attaches only to file buffers).
---@param session_id string
---@return integer buf
local function create_buffer(session_id)
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_name(buf, 'compact-lsp://chat/' .. session_id)
  vim.bo[buf].buftype = 'prompt'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'compact_chat'
  vim.fn.prompt_setprompt(buf, M.prompt)
  vim.fn.prompt_setcallback(buf, function(text)
    M.send(session_id, text)
  end)
  vim.fn.prompt_setinterrupt(buf, function()
    M.cancel(session_id)
  end)
  vim.keymap.set('n', '<C-c>', function()
    M.cancel(session_id)
  end, { buffer = buf, desc = 'Cancel the agent turn' })
  state.chats[session_id] = buf
  local _, err = client.ensure(buf)
  if err then
    vim.notify(err, vim.log.levels.ERROR)
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
  vim.wo.number = false
end

--- Open (or focus) the chat of the tracked session, creating a session with `compact/newSession` when
--- none is tracked; then send `text` if given.
---@param text string?
---@param on_ready fun(session_id: string, buf: integer)?
function M.open(text, on_ready)
  local function ready(session_id)
    local buf = M.buffer(session_id) or create_buffer(session_id)
    show(buf)
    if text and text ~= '' then
      M.send(session_id, text)
    end
    if on_ready then
      on_ready(session_id, buf)
    end
  end
  if state.session_id then
    ready(state.session_id)
    return
  end
  local title = require('compact_lsp.config').options.chat.title
  client.request('compact/newSession', { title = title }, function(err, result)
    if err or not result then
      vim.notify('compact-lsp: ' .. (err and err.message or 'could not create a session'), vim.log.levels.ERROR)
      return
    end
    state.session_id = result.sessionId
    ready(result.sessionId)
  end)
end

return M
