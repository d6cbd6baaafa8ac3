-- The help file: tags build without errors and the main topics open.
local H = require('nvim_harness')

H.run(function()
  local doc = H.config.extra.doc_dir
  vim.v.errmsg = ''
  vim.cmd('helptags ' .. vim.fn.fnameescape(doc))
  H.record('helptags_error', vim.v.errmsg)
  vim.opt.runtimepath:prepend(vim.fs.dirname(doc))
  local opened = {}
  for _, topic in ipairs(H.config.extra.topics) do
    local ok, err = pcall(vim.cmd.help, topic)
    opened[topic] = ok and vim.api.nvim_get_current_line() or tostring(err)
  end
  H.record('opened', opened)
end)
