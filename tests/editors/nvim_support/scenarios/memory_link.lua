-- A repository whose .compact/memory is a symlink to /: the user is warned once, and reading /etc/passwd
-- through the server is refused (Neovim shows the server's window/showMessage warning itself).
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/app.py', 'print("hi")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/app.py'))
  H.client()
  local sid = H.request('compact/newSession', { title = 'memory link' }).sessionId
  local ok, err = pcall(H.request, 'compact/readFile', { sessionId = sid, path = '/etc/passwd' })
  H.record('read_ok', ok)
  H.record('read_error', tostring(err))
end)
