--- The agent's permission prompts (`window/showMessageRequest`): the whole question (an edit's diff, a file's
--- content) goes into the chat, `vim.ui.select` gets a one-line prompt (pickers mangle multi-line ones), and a
--- write to a file whose buffer has unsaved changes says so before the user answers.
local state = require('compact_lsp.state')

local M = {}

--- The running turn that waits on the server (permission prompts belong to it), with its session.
---@return compact_lsp.ChatTurn?
---@return string?
function M.busy_turn()
  for session_id, turn in pairs(state.turns) do
    return turn, session_id
  end
  return nil
end

--- Show a permission question in the chat: the whole question (a diff, a file's content), capped.
---@param session_id string?
---@param message string
function M.show_question(session_id, message)
  local buf = state.chat_buffer(session_id)
  if not buf then
    return
  end
  local turn = session_id and state.turns[session_id]
  if turn then
    turn.open_text = false
  end
  local max = 20
  local lines = vim.split(message, '\n', { plain = true })
  local shown = { '  ? ' .. lines[1] }
  for i = 2, math.min(#lines, max) do
    table.insert(shown, '    ' .. lines[i])
  end
  if #lines > max then
    table.insert(shown, string.format('    … %d more lines', #lines - max))
  end
  require('compact_lsp.chat_render').append_lines(buf, shown)
end

---@param session_id string?
---@param title string
function M.show_answer(session_id, title)
  local buf = state.chat_buffer(session_id)
  if buf then
    require('compact_lsp.chat_render').append_lines(buf, { '    → ' .. title })
  end
end

--- A warning for a pending write to a file with unsaved changes in Neovim, if there is one.
---@param turn compact_lsp.ChatTurn?
---@return string?
local function unsaved_warning(turn)
  local call = turn and turn.last_call
  local edits = require('compact_lsp.edits')
  if not call or not edits.writing_tools[call.name] or type(call.input) ~= 'table' then
    return nil
  end
  local path = type(call.input.file_path) == 'string' and edits.absolute(call.input.file_path, turn.root)
  if path and edits.modified_buffer(path) then
    return string.format(
      '%s has unsaved changes in Neovim; they stay in your buffer either way',
      vim.fn.fnamemodify(path, ':~:.')
    )
  end
  return nil
end

--- Handler of `window/showMessageRequest`; runs in the coroutine Neovim gives server requests.
---@param err lsp.ResponseError?
---@param params lsp.ShowMessageRequestParams
---@param ctx lsp.HandlerContext
---@return lsp.MessageActionItem|vim.NIL
function M.ask(err, params, ctx)
  local co, is_main = coroutine.running()
  if not co or is_main then
    return vim.lsp.handlers['window/showMessageRequest'](err, params, ctx)
  end
  local turn, session_id = M.busy_turn()
  local message = params.message or ''
  local warning = unsaved_warning(turn)
  M.show_question(session_id, warning and (message .. '\n⚠ ' .. warning) or message)
  -- The diff is on screen before the choice is asked: the picker (inputlist by default) takes the screen
  -- until answered, and Neovim would only draw the chat after it.
  vim.cmd('redraw')
  local prompt = (message:match('^[^\n]*') or '') .. (warning and (' (⚠ ' .. warning .. ')') or '') .. ': '
  vim.ui.select(params.actions or {}, {
    prompt = prompt,
    kind = 'compact_lsp_permission',
    format_item = function(action)
      return action.title
    end,
  }, function(choice)
    -- resumed later: the default vim.ui.select calls back before the yield below
    vim.schedule(function()
      coroutine.resume(co, choice or vim.NIL)
    end)
  end)
  local choice = coroutine.yield()
  M.show_answer(session_id, choice ~= vim.NIL and choice.title or 'dismissed (denied)')
  require('compact_lsp.handlers').emit('CompactLspPrompt', {
    message = params.message,
    choice = choice ~= vim.NIL and choice or nil,
    warning = warning,
  })
  return choice
end

return M
