-- The server compacts on its own when an append crosses the auto-compact threshold; the plugin says so.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.client()
  local sid = H.request('compact/newSession', { title = 'auto' }).sessionId
  local discussion = {}
  for i = 1, 8 do
    table.insert(discussion, { role = 'user', content = 'Question ' .. i .. ':\n' .. H.text('question' .. i, 30) })
    table.insert(discussion, { role = 'assistant', content = 'Answer ' .. i .. ':\n' .. H.text('answer' .. i, 40) })
  end
  H.record('append', H.request('compact/append', { sessionId = sid, messages = discussion }))
  H.wait('the didCompact notification', function()
    return #H.events('CompactLspCompacted') > 0
  end)
  H.record('compacted', H.events('CompactLspCompacted')[1])
end)
