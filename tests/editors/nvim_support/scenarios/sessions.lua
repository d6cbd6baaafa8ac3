-- Sessions across a restart. First run: two sessions made by an agent over compact/append; the user picks the
-- older one with :Compact session (a list with titles), the status line follows, :Compact micro acts on it.
-- Second run (same workspace and state): the status line, :Compact status and :CompactChat (with its history and
-- a marker where results were cleared) are on that session from the start.
local H = require('nvim_harness')

local function statusline()
  return require('compact_lsp').statusline()
end

local function titles()
  local by_id = {}
  for _, item in ipairs(H.request('compact/sessions', vim.empty_dict())) do
    by_id[item.sessionId] = item.title
  end
  return by_id
end

local function first()
  local ws = H.config.workspace
  local sessions = {}
  for _, spec in ipairs({ { 'login', 'Fix the login form' }, { 'notes', 'Write the release notes' } }) do
    local sid = H.request('compact/newSession', { title = spec[2] }).sessionId
    local messages = { { role = 'user', content = spec[2] } }
    for i = 1, 3 do
      local path = ws .. '/' .. spec[1] .. i .. '.py'
      local content = H.text(spec[1] .. i, 40)
      H.write_file(path, content)
      vim.list_extend(messages, H.read_pair('toolu_' .. spec[1] .. i, path, content))
    end
    table.insert(messages, { role = 'assistant', content = 'Done with ' .. spec[1] .. '.' })
    H.request('compact/append', { sessionId = sid, messages = messages })
    sessions[spec[1]] = sid
  end
  -- A real Claude Code session, imported (it becomes the current one).
  sessions.imported = H.request('compact/importSession', { path = H.config.extra.import }).sessionId
  H.record('sessions', sessions)
  H.record('completion', vim.fn.getcompletion('Compact session ', 'cmdline'))

  H.answer_selects(function(_, items)
    for _, item in ipairs(items) do
      if item:find('Fix the login form', 1, true) then
        return item
      end
    end
  end)
  H.record('select', H.compact('session'))
  local usage = H.request('compact/status', { sessionId = sessions.login }).usage
  H.wait('the status line to show the chosen session', function()
    return statusline():find(require('compact_lsp.format').tokens(usage.total) .. '/', 1, true) ~= nil
  end)
  H.record('chosen_usage', usage)
  H.record('statusline_after_select', statusline())
  H.record('micro', H.compact('micro'))

  -- :Compact rename gives the chosen session a new title; a title the server refuses changes nothing.
  H.record('rename', H.compact('rename Login form, fixed'))
  H.record('rename_too_long', H.compact('rename ' .. string.rep('x', 201), true))
  H.record('titles_after_rename', titles())
end

local function second()
  local ws = H.config.workspace
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/login1.py'))
  H.client()
  H.wait('the current session', function()
    return require('compact_lsp').session() ~= nil and statusline() ~= ''
  end)
  H.record('session', require('compact_lsp').session())
  H.record('titles', titles())
  H.record('statusline', statusline())
  H.record('status', H.compact('status'))
  H.take_float()
  vim.cmd('CompactChat')
  H.wait('the history', function()
    return #H.events('CompactLspHistory') > 0
  end)
  H.record('chat_name', vim.api.nvim_buf_get_name(0))
  H.record('chat_lines', H.lines(0))

  -- The imported session, chosen by id (completed with <Tab>), opens with its history too.
  local imported = H.config.extra.imported
  H.record('completion', vim.fn.getcompletion('Compact session cc-', 'cmdline'))
  H.compact('session ' .. imported)
  local before = #H.events('CompactLspHistory')
  vim.cmd('CompactChat')
  H.wait('the imported history', function()
    return #H.events('CompactLspHistory') > before
  end)
  H.record('imported_name', vim.api.nvim_buf_get_name(0))
  H.record('imported_lines', H.lines(0))

  -- :CompactChat! starts a new chat even though there is a current session.
  vim.cmd('CompactChat!')
  H.wait('the new chat', function()
    return vim.api.nvim_buf_get_name(0):match('/chat/new$') ~= nil
  end)
  H.record('new_chat_lines', H.lines(0))
end

H.run(function()
  if H.config.extra.phase == 'first' then
    local ws = H.config.workspace
    H.write_file(ws .. '/main.py', 'print("hello")\n')
    vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
    H.client()
    first()
  else
    second()
  end
end)
