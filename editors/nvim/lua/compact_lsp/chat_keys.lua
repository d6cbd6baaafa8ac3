--- The chat buffer's keys (Normal mode, buffer-local): `q` closes, `?` shows the keys and commands, `[[`/`]]`
--- jump between your messages, <C-c> cancels. Each can be changed or turned off with the `keymaps` option
--- (`keymaps = false`: none but <C-c> at the prompt, which is the prompt buffer's own).
local M = {}

--- Default keys; `keymaps = { close = 'gq' }` changes one, `keymaps = { close = false }` turns one off.
M.defaults = {
  close = 'q',
  help = '?',
  prev_turn = '[[',
  next_turn = ']]',
  cancel = '<C-c>',
}

M.descriptions = {
  close = 'Close the chat window',
  help = 'Keys and commands of the chat',
  prev_turn = 'Previous message of yours',
  next_turn = 'Next message of yours',
  cancel = 'Cancel the agent turn',
}

M.order = { 'close', 'help', 'prev_turn', 'next_turn', 'cancel' }

--- The keys in force: the defaults with the user's changes, or none.
---@return table<string, string|false>
function M.keys()
  local option = require('compact_lsp.config').options.keymaps
  if option == false then
    return {}
  end
  return vim.tbl_extend('force', M.defaults, type(option) == 'table' and option or {})
end

--- Jump to the previous (`dir` -1) or next (1) line that starts one of your messages.
---@param dir integer
function M.jump(dir)
  local you = '^' .. vim.pesc(require('compact_lsp.chat_render').you)
  local count = math.max(vim.v.count, 1)
  for _ = 1, count do
    if vim.fn.search(you, dir < 0 and 'bW' or 'W') == 0 then
      break
    end
  end
end

--- Close the chat's window; the last window shows the previous buffer instead (Neovim keeps one window).
function M.close()
  if #vim.api.nvim_tabpage_list_wins(0) > 1 then
    vim.cmd.close()
  else
    vim.cmd('silent! bprevious')
  end
end

--- The help float: the keys in force and the commands.
---@param read_only boolean
function M.help(read_only)
  local keys = M.keys()
  local lines = { 'Keys (Normal mode; change them with the `keymaps` option)' }
  for _, name in ipairs(M.order) do
    if keys[name] then
      table.insert(lines, string.format('  %-6s %s', keys[name], M.descriptions[name]))
    end
  end
  vim.list_extend(lines, { '', 'At the prompt' })
  if read_only then
    table.insert(lines, '  (none: read-only; :Compact import continues it as your own copy)')
  else
    vim.list_extend(lines, { '  <CR>   send what you typed', '  <C-c>  cancel the running turn' })
  end
  vim.list_extend(lines, {
    '',
    'Commands',
    '  :CompactChat [text]     this chat; :CompactChat! a new one',
    '  :CompactSend [question] send the selected lines (Visual mode) with a question',
    '  :Compact status         what is in the context, by kind',
    '  :Compact full           summarise the conversation',
    '  :Compact timeline       every compaction of the session, with its figures',
    '  :Compact session        choose another session',
    "  :Compact import         continue an agent's session as your own copy",
    '  :Compact help           every :Compact subcommand; :help compact-lsp everything',
  })
  local doc = { lines = lines, marks = {} }
  require('compact_lsp.view').show(doc, 'compact-lsp chat')
end

--- Set the keys on a chat buffer.
---@param buf integer
---@param actions {cancel: fun(), read_only: boolean}
function M.attach(buf, actions)
  local keys = M.keys()
  local run = {
    close = M.close,
    help = function()
      M.help(actions.read_only)
    end,
    prev_turn = function()
      M.jump(-1)
    end,
    next_turn = function()
      M.jump(1)
    end,
    cancel = actions.cancel,
  }
  for _, name in ipairs(M.order) do
    if keys[name] then
      vim.keymap.set('n', keys[name], run[name], { buffer = buf, nowait = true, desc = M.descriptions[name] })
    end
  end
end

return M
