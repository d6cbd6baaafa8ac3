-- The help as a lazy.nvim `dir` install gives it: the plugin directory on 'runtimepath' and its plugin/ files
-- sourced, no :helptags run (lazy.nvim runs none for a local directory). Then, on a copy of doc/ without tags,
-- :helptags builds the tags the repository ships.
local H = require('nvim_harness')

H.run(function()
  local extra = H.config.extra
  vim.opt.runtimepath:prepend(extra.plugin_copy)
  vim.cmd.runtime({ 'plugin/compact_lsp.lua', bang = true })
  local opened = {}
  for _, topic in ipairs(extra.topics) do
    local ok, err = pcall(vim.cmd.help, topic)
    opened[topic] = ok and vim.api.nvim_get_current_line() or tostring(err)
  end
  H.record('opened', opened)
  vim.v.errmsg = ''
  vim.cmd('helptags ' .. vim.fn.fnameescape(extra.doc_dir))
  H.record('helptags_error', vim.v.errmsg)
end)
