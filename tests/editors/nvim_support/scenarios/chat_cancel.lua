-- <C-c> during a turn whose model request hangs: the turn ends at once with a "cancelled" mark, and the next
-- message typed at the prompt is answered (the plugin does not stay "still answering").
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/app.py', 'def greet():\n    return "hi"\n')

  vim.cmd('CompactChat')
  H.wait('the chat window', function()
    return vim.bo.filetype == 'compact_chat'
  end)
  local buf = vim.api.nvim_get_current_buf()
  H.type('iRead app.py and explain it<CR><Esc>')
  -- The model read the file; its next request hangs (the test drops a flag file once the stub holds it).
  H.wait('the hanging model request', function()
    return vim.uv.fs_stat(H.config.extra.hanging_flag) ~= nil
  end)
  H.type('<C-c>')
  H.wait('the cancelled turn to end', function()
    return #H.events('CompactLspChatDone') > 0
  end)
  H.record('cancelled', H.events('CompactLspChatDone')[1])
  H.record('lines_after_cancel', H.lines(buf))

  H.type('iSay something short<CR><Esc>')
  H.wait('the second turn to end', function()
    return #H.events('CompactLspChatDone') > 1
  end)
  H.record('second', H.events('CompactLspChatDone')[2])
  H.record('lines', H.lines(buf))
  H.record('warnings', vim.tbl_filter(function(n)
    return n.level and n.level >= vim.log.levels.WARN
  end, H.results.notifications))
end)
