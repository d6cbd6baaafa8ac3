-- Minimal init for the plugin tests: the plugin and the harness on 'runtimepath', the server command and
-- settings from $NVIM_HARNESS_CONFIG (written by runner.py), nothing from the user's config.
local config = vim.json.decode((assert(vim.env.NVIM_HARNESS_CONFIG, 'NVIM_HARNESS_CONFIG is not set')))
if config.setup ~= false then
  vim.opt.runtimepath:prepend(config.plugin_dir)
end
vim.opt.runtimepath:prepend(config.support_dir)
vim.o.swapfile = false
vim.o.shada = ''
vim.o.more = false
if config.setup ~= false then
  require('compact_lsp').setup({ cmd = config.cmd, settings = config.settings })
end
