-- A lazy.nvim install of the repository into a temporary directory, done as lazy.nvim does it: the spec from
-- editors/nvim/README.md, its `build` run on the clone, then its `config` when the first file opens. No
-- compact-lsp on $PATH: the plugin must attach with the server the build put in the clone's .venv.
local H = require('nvim_harness')

H.run(function()
  local extra = H.config.extra
  local spec = assert(load('return ' .. extra.spec))()
  local plugin = { dir = extra.clone, name = spec.name }
  vim.opt.runtimepath:append(plugin.dir) -- lazy.nvim puts the plugin's directory on 'runtimepath'
  H.record('on_path', vim.fn.exepath('compact-lsp'))
  local ok, err = pcall(spec.build, plugin)
  H.record('build_error', ok and '' or tostring(err))
  spec.config(plugin, vim.tbl_deep_extend('force', spec.opts or {}, { settings = H.config.settings }))
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.wait('the server to attach', function()
    local client = vim.lsp.get_clients({ name = 'compact_lsp', bufnr = 0 })[1]
    return client ~= nil and client.initialized
  end)
  local client = vim.lsp.get_clients({ name = 'compact_lsp', bufnr = 0 })[1]
  H.record('cmd', client.config.cmd)
  H.record('server_info', client.server_info)
  H.record('commands', vim.fn.exists(':CompactInstall'))
  vim.cmd('checkhealth compact_lsp')
  H.record('health', H.lines(0))
end)
