-- :Compact full against a model that never answers, then :Compact cancel: the user asked for it, so it is
-- reported as information, and nothing changed.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.client()
  local sid = H.request('compact/newSession', { title = 'cancel' }).sessionId
  local discussion = {}
  for i = 1, 4 do
    table.insert(discussion, { role = 'user', content = 'Question ' .. i .. ':\n' .. H.text('question' .. i, 20) })
    table.insert(discussion, { role = 'assistant', content = 'Answer ' .. i .. ':\n' .. H.text('answer' .. i, 30) })
  end
  local before = H.request('compact/append', { sessionId = sid, messages = discussion }).usage.total
  H.compact('session ' .. sid)

  local started = #H.events('CompactLspCommand')
  vim.cmd('Compact full')
  H.wait('the compaction progress', function()
    return #require('compact_lsp.progress').running() > 0
  end)
  H.record('cancel', H.compact('cancel'))
  H.wait(':Compact full to end', function()
    for i = started + 1, #H.events('CompactLspCommand') do
      if H.events('CompactLspCommand')[i].data.name == 'full' then
        return true
      end
    end
    return false
  end)
  local full = vim.tbl_filter(function(e)
    return e.name == 'full'
  end, vim.tbl_map(function(e)
    return e.data
  end, H.events('CompactLspCommand')))
  H.record('full', full[#full])
  H.record('total_before', before)
  H.record('total_after', H.request('compact/status', { sessionId = sid }).usage.total)
end)
