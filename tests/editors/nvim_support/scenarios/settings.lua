-- Settings fail safe, as Neovim sends them: an invalid value at start and an invalid change later cost only
-- their own keys; each is reported once (headless Neovim writes window/showMessage to stderr).
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/app.py', 'print("hi")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/app.py'))
  local client = H.client()
  local sid = H.request('compact/newSession', { title = 'settings' }).sessionId
  H.record('window_at_start', H.request('compact/status', { sessionId = sid }).usage.contextWindow)
  local bad = vim.tbl_deep_extend('force', H.config.settings, H.config.extra.change)
  client:notify('workspace/didChangeConfiguration', { settings = { compactLsp = bad } })
  H.wait('the change to apply', function()
    local status = H.request('compact/status', { sessionId = sid })
    return status.usage.contextWindow == H.config.extra.change.contextWindow
  end)
  H.record('window_after_change', H.request('compact/status', { sessionId = sid }).usage.contextWindow)
  H.record('second_session', H.request('compact/newSession', { title = 'after the change' }).sessionId)
end)
