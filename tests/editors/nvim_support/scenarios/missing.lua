-- The server is not installed: opening a file says so once, with an install command; commands and the chat say
-- the same, once each, with no transport stack trace.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.wait('the missing-server notice', function()
    return #H.results.notifications > 0
  end)
  H.record('on_open', vim.deepcopy(H.results.notifications))

  H.record('status', H.compact('status', true))
  vim.cmd('CompactChat')
  H.wait('the chat window', function()
    return vim.bo.filetype == 'compact_chat'
  end)
  H.record('chat_lines', H.lines(0))
  H.record('clients', #vim.lsp.get_clients({ name = 'compact_lsp' }))
  H.record('messages', vim.fn.execute('messages'))

  -- Without a `cmd`, the server is looked up on $PATH, then in this checkout's .venv.
  local config = require('compact_lsp.config')
  config.options.cmd = nil
  H.record('default_cmd', config.server_cmd())
  H.record('install_command', config.install_command())
end)
