--- compact-lsp for Neovim: commands, status line, progress and chat on top of the compact-lsp server.
---
--- Defaults work without calling anything but `vim.lsp.enable('compact_lsp')`; `setup()` sets options.
local M = {}

--- Configure the server and the plugin, and enable the server (unless `opts.enable == false`).
---@param opts compact_lsp.Options?
function M.setup(opts)
  local config = require('compact_lsp.config')
  config.apply(opts)
  require('compact_lsp.state').failed_start = nil -- a new command may start
  -- The commands again: lazy.nvim deletes its `cmd` stand-ins (and with them commands made before) on load.
  require('compact_lsp.plugin').load()
  local o = config.options
  ---@type vim.lsp.Config
  local overrides = {}
  if o.cmd then
    overrides.cmd = o.cmd
  end
  if o.settings then
    -- An empty Lua table would go out as a JSON array; the server expects an object.
    local settings = next(o.settings) and o.settings or vim.empty_dict()
    overrides.init_options = settings
    overrides.settings = { compactLsp = settings }
  end
  if next(overrides) then
    vim.lsp.config('compact_lsp', overrides)
  end
  if o.enable ~= false then
    vim.lsp.enable('compact_lsp')
  end
end

--- The status-line component: "48.2k/200k 24%", highlighted at warning/critical level; '' before the
--- server reports usage. Works in 'statusline' (`%{%v:lua.require'compact_lsp'.statusline()%}`) and lualine.
---@param opts compact_lsp.StatuslineOpts?
---@return string
function M.statusline(opts)
  return require('compact_lsp.statusline').render(opts)
end

--- The latest usage of the current session (nil before the server reports any).
---@return compact_lsp.Usage?
function M.usage()
  return require('compact_lsp.state').current_usage()
end

--- The current session as this Neovim knows it (the server's `compact/currentSession`); nil before it is known.
---@return string?
function M.session()
  return require('compact_lsp.state').session_id
end

--- Make `session_id` the current session (on the server too): the status line, commands and chat follow it.
---@param session_id string
---@param on_done fun(err: lsp.ResponseError?)?
function M.set_session(session_id, on_done)
  require('compact_lsp.sessions').select(session_id, on_done)
end

--- Run a `:Compact` subcommand from Lua: `require('compact_lsp').run('full', {'keep', 'the', 'plan'})`.
---@param name string
---@param args string[]?
function M.run(name, args)
  require('compact_lsp.commands').dispatch({ fargs = vim.list_extend({ name }, args or {}) })
end

--- Open the chat of the current session (a new chat when there is none, or with `opts.new`) and optionally
--- send `text`.
---@param text string?
---@param opts {new: boolean?}?
function M.chat(text, opts)
  require('compact_lsp.chat').open(text, opts)
end

return M
