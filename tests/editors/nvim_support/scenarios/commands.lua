-- Every :Compact subcommand against the real server: the status line before and after microcompaction,
-- the status and rehydration floats, a full compaction with the offline summariser and its progress, undo
-- (twice: the second has nothing to undo), and completion.
local H = require('nvim_harness')

local function statusline()
  return require('compact_lsp').statusline()
end

H.run(function()
  local ws = H.config.workspace
  local files = {}
  for i = 1, 6 do
    local path = ws .. '/src/mod' .. i .. '.py'
    local content = H.text('mod' .. i, 225)
    H.write_file(path, content)
    files[i] = { path = path, content = content }
  end

  -- Opening a file starts the server through vim.lsp.enable and attaches the buffer.
  vim.cmd.edit(vim.fn.fnameescape(files[1].path))
  local client = H.client()
  H.record('attached', vim.lsp.buf_is_attached(0, client.id))
  H.record('root_dir', client.root_dir)
  H.record('statusline_empty', statusline())

  local sid = H.request('compact/newSession', { title = 'nvim commands' }).sessionId
  H.record('session_id', sid)
  H.compact('session ' .. sid)
  H.record('tracked_session', require('compact_lsp').session())

  local messages = { { role = 'user', content = 'Read the modules and tell me what they do.' } }
  for i, f in ipairs(files) do
    vim.list_extend(messages, H.read_pair('toolu_read_' .. i, f.path, f.content))
  end
  table.insert(messages, { role = 'assistant', content = 'All six modules define request handlers.' })
  local seen = #H.events('CompactLspUsage')
  local appended = H.request('compact/append', { sessionId = sid, messages = messages })
  local before = H.wait_usage(seen, function(u)
    return u.total == appended.usage.total
  end)
  H.record('usage_before', before)
  H.record('statusline_before', statusline())
  -- The README's lazy-loading-safe 'statusline' snippet, as Neovim draws it.
  local snippet = "%{%luaeval('package.loaded.compact_lsp and require([[compact_lsp]]).statusline() or [[]]')%}"
  H.record('statusline_snippet', vim.api.nvim_eval_statusline(snippet, { use_tabline = false }).str)

  seen = #H.events('CompactLspUsage')
  H.record('micro', H.compact('micro'))
  local after = H.wait_usage(seen, function(u)
    return u.total < before.total
  end)
  H.record('usage_after_micro', after)
  H.record('statusline_after_micro', statusline())

  H.record('status', H.compact('status'))
  H.record('status_float', H.take_float())
  H.record('files', H.compact('files'))
  H.record('files_float', H.take_float())

  -- A long discussion, so that a full compaction has something to summarise.
  local discussion = {}
  for i = 1, 6 do
    table.insert(discussion, { role = 'user', content = 'Question ' .. i .. ':\n' .. H.text('question' .. i, 40) })
    table.insert(discussion, { role = 'assistant', content = 'Answer ' .. i .. ':\n' .. H.text('answer' .. i, 60) })
  end
  seen = #H.events('CompactLspUsage')
  local grown = H.request('compact/append', { sessionId = sid, messages = discussion })
  H.wait_usage(seen, function(u)
    return u.total == grown.usage.total
  end)
  H.record('usage_before_full', grown.usage)

  seen = #H.events('CompactLspUsage')
  H.record('full', H.compact('full keep the handler names'))
  H.wait_usage(seen, function(u)
    return u.total < grown.usage.total
  end)
  H.record('statusline_after_full', statusline())
  H.record('messages_after_full', H.request('compact/messages', { sessionId = sid }))
  H.record('lsp_status_after', vim.lsp.status())
  H.record('echoed_after_full', vim.fn.execute('messages'))
  H.record('status_after_full', H.compact('status'))
  H.record('status_float_after_full', H.take_float())

  H.record('undo', H.compact('undo'))
  H.record('undo_again', H.compact('undo', true))
  H.record('messages_after_undo', H.request('compact/messages', { sessionId = sid }))

  H.record('completion_all', vim.fn.getcompletion('Compact ', 'cmdline'))
  H.record('completion_f', vim.fn.getcompletion('Compact f', 'cmdline'))
  H.record('completion_session', vim.fn.getcompletion('Compact session ', 'cmdline'))

  -- Pins: this buffer's file, seen in the status float and offered by <Tab> after unpin, then unpinned by path.
  H.record('pin', H.compact('pin'))
  H.compact('status')
  H.record('pin_float', H.take_float())
  H.record('completion_unpin', vim.fn.getcompletion('Compact unpin ', 'cmdline'))
  H.record('unpin', H.compact('unpin src/mod1.py'))

  -- The reads came from an agent over compact/append, not from this Neovim's chat: :Compact status (above) made
  -- the plugin watch them, so a change outside Neovim is noticed.
  local seen_changes = #H.events('CompactLspFileChanged')
  H.write_file(files[2].path, 'print("changed outside")\n')
  H.wait('the change notice', function()
    return #H.events('CompactLspFileChanged') > seen_changes
  end)
  H.record('changed', H.events('CompactLspFileChanged')[seen_changes + 1].data.path)
end)
