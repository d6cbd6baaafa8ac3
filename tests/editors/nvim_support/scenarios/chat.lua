-- A chat turn through :CompactChat with no file open (the chat buffer starts the server itself), typed at the
-- prompt as a user would, against the loopback Messages-API stub; the permission prompt is answered through
-- vim.ui.select. Neovim then quits with :qa (not :qa!) with the chat hidden: the chat must not block it.
local H = require('nvim_harness')
H.quit = 'qa'

H.run(function()
  local extra = H.config.extra
  H.answer_selects(function()
    return extra.answer
  end)

  vim.cmd('CompactChat')
  H.wait('the chat window', function()
    return vim.bo.filetype == 'compact_chat'
  end)
  local buf = vim.api.nvim_get_current_buf()
  H.record('initial_lines', H.lines(buf))
  H.record('buftype', vim.bo[buf].buftype)
  H.record('buflisted', vim.bo[buf].buflisted)
  local client = H.client()
  H.record('buf_attached', vim.lsp.buf_is_attached(buf, client.id))

  H.type('i' .. extra.text .. '<CR><Esc>')
  H.wait('the chat turn to end', function()
    return #H.events('CompactLspChatDone') > 0
  end)
  H.record('done', H.events('CompactLspChatDone')[1])
  H.record('lines', H.lines(buf))
  H.record('buf_name', vim.api.nvim_buf_get_name(buf))
  H.record('session', require('compact_lsp').session())
  H.record('sessions', H.request('compact/sessions', vim.empty_dict()))
  H.record('statusline', require('compact_lsp').statusline())
  -- The chat window closes; its buffer stays, hidden, for the next :CompactChat.
  vim.cmd.close()
  H.record('hidden_modified', vim.bo[buf].modified)
end)
