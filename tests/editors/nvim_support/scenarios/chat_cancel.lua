-- <C-c> during a turn whose model request hangs: the turn ends at once with a "cancelled" mark, and the next
-- message typed at the prompt is answered (the plugin does not stay "still answering"). Then the server dies
-- during a turn: the turn ends with an error line, and the next message starts a new server and is answered.
-- Last, the API refuses a request: the turn ends as failed, with the reason.
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
    return vim.uv.fs_stat(H.config.extra.hanging_flags[1]) ~= nil
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

  H.type('iAnd another thing<CR><Esc>')
  H.wait('the third model request to hang', function()
    return vim.uv.fs_stat(H.config.extra.hanging_flags[2]) ~= nil
  end)
  local old = vim.lsp.get_clients({ name = 'compact_lsp' })[1]
  H.record('old_client', old.id)
  old:stop(true)
  H.wait('the turn of the stopped server to end', function()
    return #H.events('CompactLspChatDone') > 2
  end)
  H.record('third', H.events('CompactLspChatDone')[3])
  H.type('iAre you back?<CR><Esc>')
  H.wait('the fourth turn to end', function()
    return #H.events('CompactLspChatDone') > 3
  end)
  H.record('fourth', H.events('CompactLspChatDone')[4])
  H.record('new_client', vim.lsp.get_clients({ name = 'compact_lsp' })[1].id)

  -- The API refuses the next request: the turn ends as failed, with the reason, and the chat stays usable.
  H.type('iOne more<CR><Esc>')
  H.wait('the failed turn to end', function()
    return #H.events('CompactLspChatDone') > 4
  end)
  H.record('fifth', H.events('CompactLspChatDone')[5])
  H.record('turns_left', vim.tbl_count(require('compact_lsp.state').turns))
  H.record('lines', H.lines(buf))
  H.record('warnings', vim.tbl_filter(function(n)
    return n.level and n.level >= vim.log.levels.WARN
  end, H.results.notifications))
end)
