--- A turn of the built-in agent in a chat: the user's text sent with `compact/chat` (retried while the server winds
--- down a cancelled turn), its `compact/chatEvent`s rendered in the session's chat buffer, the tool calls it makes
--- tracked (reads watched, writes reloading their buffers), and its end marked once, however it ends (answer,
--- error, <C-c>, the server gone). The buffer itself is chat_buffer.lua's.
local client = require('compact_lsp.client')
local render = require('compact_lsp.chat_render')
local state = require('compact_lsp.state')

local M = {}

--- A turn the server refuses as busy right after a cancel is retried this long (the old turn is winding down).
local BUSY_RETRY_MS = 5000
local BUSY_RETRY_EVERY_MS = 100

---@param pattern string
---@param data table
local function emit(pattern, data)
  require('compact_lsp.handlers').emit(pattern, data)
end

local pending_ns = vim.api.nvim_create_namespace('compact_lsp.chat.pending')

--- What the chat says while the model has not answered yet (after a message, after a tool result): replaced by the
--- answer's first text or tool row, gone when the turn ends. <C-c> is the prompt's own interrupt, whatever the
--- `keymaps` option says.
M.WORKING = 'Claude is thinking… (<C-c> stops it)'

--- Show what is pending, as virtual lines just above the prompt: the working line while the model has not answered
--- yet, then the messages waiting for the running turn to end. Virtual, so never in the transcript, never glued
--- onto the streamed answer, never in what the user types at the prompt.
---@param session_id string
local function show_pending(session_id)
  local buf = state.chat_buffer(session_id)
  if not buf then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, pending_ns, 0, -1)
  local lines = {}
  local turn = state.turns[session_id]
  if turn and turn.waiting then
    table.insert(lines, { { '  ' .. M.WORKING, 'CompactLspChatMark' } })
  end
  local queued = state.queued[session_id] or {}
  for _, text in ipairs(queued) do
    local first = text:match('^[^\n]*') or ''
    table.insert(lines, { { '  » queued: ' .. first, 'CompactLspChatUser' } })
  end
  if #queued > 0 then
    table.insert(lines, { { '    sent when the answer ends (<C-c> ends it now)', 'CompactLspChatMark' } })
  end
  if #lines == 0 then
    return
  end
  local last = vim.api.nvim_buf_line_count(buf) - 1
  vim.api.nvim_buf_set_extmark(buf, pending_ns, last, 0, { virt_lines = lines, virt_lines_above = true })
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
  show_pending(session_id) -- the working line goes, whatever ended the turn
  local result = outcome.result or {}
  if type(result.usage) == 'table' and result.usage.total then
    state.usage[session_id] = result.usage
    vim.cmd.redrawstatus({ bang = true })
  end
  local buf = state.chat_buffer(session_id)
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
  -- What the user typed meanwhile goes now, as one message (however the turn ended: a cancel is often the
  -- user stopping the agent to say something else).
  local queued = state.queued[session_id]
  if queued and #queued > 0 then
    state.queued[session_id] = nil
    show_pending(session_id)
    vim.schedule(function()
      M.send(session_id, table.concat(queued, '\n\n'))
    end)
  end
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

--- What the chat says under a write's result when the file's buffer had unsaved changes (the notice on the message
--- line goes when the chat's Insert mode is drawn; this stays).
local DIVERGED = '  ⚠ %s: your unsaved changes stay in the buffer; :e! takes the agent’s version, :w! keeps yours'

--- Tool calls seen by the plugin: reads are watched for changes on disk, writes reload the buffers they touch.
--- Returns the lines the chat adds under the event (a write that left a buffer apart from the disk).
---@param turn compact_lsp.ChatTurn
---@param ev table
---@return string[]
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
      if outcome == 'diverged' then
        return { string.format(DIVERGED, vim.fn.fnamemodify(path, ':~:.')) }
      end
    elseif call.name == 'read_file' then
      watch.read(path)
    end
  end
  return {}
end

--- Render one `compact/chatEvent` in its session's chat buffer.
---@param ev compact_lsp.ChatEventParams|table
function M.on_event(ev)
  local turn = state.turns[ev.sessionId]
  local notes = turn and track_tools(turn, ev) or {}
  local buf = state.chat_buffer(ev.sessionId)
  if not buf then
    return
  end
  local was_waiting = turn and turn.waiting
  if turn and (ev.kind == 'text' or ev.kind == 'tool_use' or ev.kind == 'tool_result') then
    -- the answer replaces the working line; after a tool's result the model is asked again
    turn.waiting = ev.kind == 'tool_result'
  end
  if ev.kind == 'text' then
    render.append_text(buf, turn, ev.text or ev.delta or '')
  else
    if turn then
      turn.open_text = false
    end
    render.append_lines(buf, vim.list_extend(render.event_lines(ev), notes))
  end
  if state.queued[ev.sessionId] or was_waiting ~= (turn and turn.waiting) then
    show_pending(ev.sessionId)
  end
end

--- A compaction of a session whose chat is open (`compact/didCompact`): its marker, where it happened (mid-turn too),
--- as the history shows it when the chat is opened again.
---@param result compact_lsp.DidCompactParams
function M.on_compacted(result)
  local buf = state.chat_buffer(result.sessionId)
  if not buf then
    return
  end
  local turn = state.turns[result.sessionId]
  if turn then
    turn.open_text = false
  end
  local kind = ({ micro = 'microcompaction', undo = 'undo' })[result.kind] or 'compaction'
  local entry = vim.tbl_extend('force', result, { kind = kind })
  render.append_lines(buf, { render.compaction_mark(entry) })
end

--- Send `text` as one user turn of `session_id` (whose buffer already shows it).
---@param session_id string
---@param text string
---@param started integer? vim.uv.now() of the first attempt (busy retries)
local function request_turn(session_id, text, started)
  local buf = state.chat_buffer(session_id)
  local c, err = client.ensure()
  if not c then
    local turn = state.turns[session_id]
    if turn then
      finish(session_id, turn, { error = buf and render.server_error(buf, err or 'no server') or err })
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

--- Send one user turn: "You: …" in the chat, then the request. While the agent still answers, the text waits
--- in a queue shown above the prompt and goes when the answer ends.
---@param session_id string
---@param text string
function M.send(session_id, text)
  if text:match('^%s*$') then
    return
  end
  if state.turns[session_id] then
    state.queued[session_id] = state.queued[session_id] or {}
    table.insert(state.queued[session_id], text)
    show_pending(session_id)
    emit('CompactLspQueued', { session_id = session_id, text = text })
    return
  end
  local buf = state.chat_buffer(session_id)
  if buf then
    render.append_lines(buf, render.you_lines(text))
  end
  M.start_echoed(session_id, text)
end

--- Start the turn of `text`, which the chat already shows (a new chat's first message, shown while its session
--- was being created).
---@param session_id string
---@param text string
function M.start_echoed(session_id, text)
  ---@type compact_lsp.ChatTurn
  local turn = { open_text = false, calls = {}, waiting = true }
  state.turns[session_id] = turn
  show_pending(session_id)
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
