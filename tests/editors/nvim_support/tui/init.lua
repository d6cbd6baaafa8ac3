-- A user's init.lua for the terminal tests: the plugin on 'runtimepath', setup() with the server command and
-- settings from $COMPACT_TUI_CONFIG (written by the test), and the README's status line. Nothing else: every
-- prompt a user would meet (hit-enter included) is met here too.
local config = vim.json.decode((assert(vim.env.COMPACT_TUI_CONFIG, 'COMPACT_TUI_CONFIG is not set')))
vim.opt.runtimepath:prepend(config.plugin_dir)
vim.o.swapfile = false
vim.o.shada = ''
vim.o.laststatus = 2
vim.o.statusline = "%f %= %{%luaeval('package.loaded.compact_lsp and require([[compact_lsp]]).statusline({ highlight = false }) or [[]]')%} "
require('compact_lsp').setup({ cmd = config.cmd, settings = config.settings, keymaps = config.keymaps })
