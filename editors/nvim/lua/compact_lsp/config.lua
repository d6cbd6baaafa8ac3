--- Options given to `require('compact_lsp').setup()`, merged over the defaults, and the one place that decides
--- which server command runs (`server_cmd()`); lsp/compact_lsp.lua, the client, `:checkhealth` and the
--- missing-server message all ask here.
local M = {}

---@class compact_lsp.Options
---@field cmd string[]? server command (default: `server_cmd()`: compact-lsp on $PATH, else this checkout's .venv)
---@field settings compact_lsp.Settings? server settings, camelCase as in docs/protocol.md (settings_types.lua);
---       sent as initializationOptions and as the `compactLsp` section of workspace/didChangeConfiguration
---@field enable boolean? call `vim.lsp.enable('compact_lsp')` (default true)
---@field progress boolean|'auto'? echo compaction progress: 'auto' (default) echoes unless fidget.nvim shows it
---@field notify_auto boolean? notify when the server compacts on its own (auto/idle/size) (default true)
---@field notify_changes boolean? notify when a file the model read changes on disk (default true)
---@field statusline {prefix: string?}? status-line component options
---@field chat {title: string?}? chat buffer options: `title` of sessions it creates (default: the first message)
---@field keymaps table<string, string|false>|false? the chat buffer's keys (compact_lsp.chat_keys): a key per
---       action (`close`, `help`, `prev_turn`, `next_turn`, `cancel`), false for one to have none; false: no keys

---@type compact_lsp.Options
M.defaults = {
  enable = true,
  progress = 'auto',
  notify_auto = true,
  notify_changes = true,
  statusline = { prefix = '' },
  chat = {},
  keymaps = {},
}

---@type compact_lsp.Options
M.options = vim.deepcopy(M.defaults)

---@param opts compact_lsp.Options?
function M.apply(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
end

--- The repository checkout this plugin runs from (`editors/nvim` inside it), if it is one.
---@return string?
function M.repository()
  local source = debug.getinfo(1, 'S').source:gsub('^@', '')
  local root = vim.fs.normalize(vim.fn.fnamemodify(source, ':p:h:h:h:h:h'))
  if vim.uv.fs_stat(root .. '/pyproject.toml') and vim.uv.fs_stat(root .. '/server/compact_lsp') then
    return root
  end
  return nil
end

--- The server command, resolved in order: the `cmd` given to setup(); `compact-lsp` on $PATH; the
--- `.venv/bin/compact-lsp` of the checkout the plugin runs from (what `.ci/setup` or the install command
--- below creates). Nil when none is executable.
---@return string[]? cmd
function M.server_cmd()
  if M.options.cmd then
    return M.options.cmd
  end
  if vim.fn.executable('compact-lsp') == 1 then
    return { 'compact-lsp', '--stdio' }
  end
  local repo = M.repository()
  local local_server = repo and (repo .. '/.venv/bin/compact-lsp')
  if local_server and vim.fn.executable(local_server) == 1 then
    return { local_server, '--stdio' }
  end
  return nil
end

--- A path for a shell command, `~`-shortened when that needs no quoting.
---@param path string
---@return string
local function shell_path(path)
  local short = vim.fn.fnamemodify(path, ':~')
  if short:match('^[%w_./~+-]+$') then
    return short
  end
  return vim.fn.shellescape(path)
end

--- How to install the server where `server_cmd()` finds it: `:CompactInstall` (a .venv inside this checkout, the
--- lazy.nvim build step does the same), with the shell equivalent.
---@return string
function M.install_command()
  local repo = M.repository()
  if not repo then
    return 'pipx install git+https://github.com/compact-lsp/compact-lsp'
  end
  return string.format(':CompactInstall (or: cd %s && python3 -m venv .venv && .venv/bin/pip install .)', shell_path(repo))
end

--- Where a server command comes from, in words, for :checkhealth.
---@param cmd string[]
---@return string
function M.server_source(cmd)
  if M.options.cmd then
    return 'the cmd given to setup()'
  end
  local repo = M.repository()
  local exe = vim.fn.exepath(cmd[1])
  if repo and vim.fs.normalize(exe) == vim.fs.normalize(repo .. '/.venv/bin/compact-lsp') then
    return "the plugin's own virtual environment (" .. repo .. '/.venv, made by :CompactInstall or the lazy.nvim build)'
  end
  if cmd[1] == 'compact-lsp' or exe == vim.fn.exepath('compact-lsp') then
    return 'compact-lsp on $PATH (' .. exe .. ')'
  end
  return exe ~= '' and exe or cmd[1]
end

--- Why the server cannot start, in one line, or nil when `cmd` (default: the configured one) is executable.
---@param cmd string[]?
---@return string?
function M.missing_server(cmd)
  if cmd == nil then
    local config = vim.lsp.config[require('compact_lsp.client').name]
    cmd = config and config.cmd or M.server_cmd()
  end
  if type(cmd) == 'function' or (type(cmd) == 'table' and cmd[1] and vim.fn.executable(cmd[1]) == 1) then
    return nil
  end
  local what = type(cmd) == 'table' and cmd[1] and cmd[1] ~= 'compact-lsp'
      and ('server `' .. cmd[1] .. '` not found')
    or 'server not found'
  return string.format('compact-lsp: %s. Install: %s', what, M.install_command())
end

return M
