--- Options given to `require('compact_lsp').setup()`, merged over the defaults.
local M = {}

---@class compact_lsp.Options
---@field cmd string[]? server command (default: the `cmd` of lsp/compact_lsp.lua, `{'compact-lsp', '--stdio'}`)
---@field settings table? server settings, camelCase as in docs/protocol.md; sent as initializationOptions and
---       as the `compactLsp` section of workspace/didChangeConfiguration
---@field enable boolean? call `vim.lsp.enable('compact_lsp')` (default true)
---@field progress boolean? echo compaction progress in the message area (default false: use vim.lsp.status())
---@field notify_auto boolean? notify when the server compacts on its own (auto/idle/size) (default true)
---@field statusline {prefix: string?}? status-line component options
---@field chat {title: string?}? chat buffer options: `title` of sessions it creates

---@type compact_lsp.Options
M.defaults = {
  enable = true,
  progress = false,
  notify_auto = true,
  statusline = { prefix = '' },
  chat = { title = 'Neovim chat' },
}

---@type compact_lsp.Options
M.options = vim.deepcopy(M.defaults)

---@param opts compact_lsp.Options?
function M.apply(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
end

return M
