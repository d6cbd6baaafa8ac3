-- compact-lsp user commands, highlight groups and the progress listener (compact_lsp.plugin); loads no other
-- module until used. setup() makes them too, so a plugin manager that lazy-loads on `cmd` cannot lose them.
if vim.g.loaded_compact_lsp then
  return
end
vim.g.loaded_compact_lsp = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('compact-lsp needs Neovim 0.11 or newer', vim.log.levels.WARN)
  return
end

require('compact_lsp.plugin').load()
