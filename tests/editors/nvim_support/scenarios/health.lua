-- :checkhealth compact_lsp, as the user sees it.
local H = require('nvim_harness')

H.run(function()
  vim.cmd('checkhealth compact_lsp')
  H.record('lines', vim.api.nvim_buf_get_lines(0, 0, -1, false))
end)
