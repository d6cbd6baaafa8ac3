--- Installs the server into a virtual environment inside the plugin's checkout (`<repository>/.venv`), from the
--- repository's own source: the lazy.nvim `build` step and `:CompactInstall`. config.server_cmd() finds it there.
local M = {}

--- The oldest Python the server runs on (pyproject.toml's requires-python).
M.MIN_PYTHON = { 3, 11 }

--- A Python >= 3.11 on $PATH, else nil and one sentence saying what was found and what to install.
---@return string? python
---@return string? why
function M.find_python()
  local seen, tried = {}, {}
  for _, name in ipairs({ 'python3', 'python3.13', 'python3.12', 'python3.11', 'python' }) do
    local exe = vim.fn.exepath(name)
    if exe ~= '' and not tried[exe] then
      tried[exe] = true
      local ok, out = pcall(function()
        return vim.system({ exe, '-c', 'import sys; print("%d.%d" % sys.version_info[:2])' }, { text = true })
          :wait(10000)
      end)
      local major, minor = ((ok and out.stdout) or ''):match('^(%d+)%.(%d+)')
      if major then
        major, minor = tonumber(major), tonumber(minor)
        if major > M.MIN_PYTHON[1] or (major == M.MIN_PYTHON[1] and minor >= M.MIN_PYTHON[2]) then
          return exe
        end
        table.insert(seen, string.format('%s is Python %d.%d', exe, major, minor))
      end
    end
  end
  local found = #seen > 0 and table.concat(seen, '; ') or 'no python3 on $PATH'
  return nil,
    string.format(
      'compact-lsp needs Python %d.%d or newer (%s): install it (python.org or your package manager), then run :CompactInstall',
      M.MIN_PYTHON[1],
      M.MIN_PYTHON[2],
      found
    )
end

--- The commands that build `<repository>/.venv` with the server in it.
---@param repo string
---@param python string
---@return string[][]
function M.steps(repo, python)
  local venv = repo .. '/.venv'
  return {
    { python, '-m', 'venv', '--clear', venv },
    { venv .. '/bin/python', '-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', repo },
  }
end

--- After a successful install: the compact_lsp config uses the new server (unless setup() was given a cmd), and
--- once Neovim is running, a server already running stops and the open files start the new one.
---@return string what happens next, in the user's words
local function use_new_server()
  require('compact_lsp.state').failed_start = nil -- the new server may start, for every file again
  local config = require('compact_lsp.config')
  if config.options.cmd then
    return 'your setup() cmd is still the one used'
  end
  local cmd = config.server_cmd()
  if not cmd then
    return 'it starts with the next file you open'
  end
  local name = require('compact_lsp.client').name
  vim.lsp.config(name, { cmd = cmd })
  if vim.v.vim_did_enter ~= 1 or not vim.lsp.is_enabled(name) then
    return 'it starts with the first file you open'
  end
  local running = vim.lsp.get_clients({ name = name })
  for _, c in ipairs(running) do
    c:stop()
  end
  -- Re-enabling runs the FileType autocommand of every open buffer, which starts the new server.
  vim.wait(3000, function()
    return #vim.lsp.get_clients({ name = name }) == 0
  end, 20)
  vim.lsp.enable(name)
  return #running > 0 and 'the running server was replaced' or 'it is running for the open files'
end

---@class compact_lsp.InstallOptions
---@field wait boolean? block until done and raise an error on failure (lazy.nvim's `build`)
---@field on_done fun(ok: boolean, message: string)? called when done (default: vim.notify)

--- Builds the virtual environment; the server in it is used from the next start.
---@param opts compact_lsp.InstallOptions?
function M.run(opts)
  opts = opts or {}
  local function done(ok, message)
    if ok then
      message = message .. '; ' .. use_new_server()
    end
    if opts.wait then
      if not ok then
        error(message, 0)
      end
      vim.notify(message, vim.log.levels.INFO)
    elseif opts.on_done then
      opts.on_done(ok, message)
    else
      vim.notify(message, ok and vim.log.levels.INFO or vim.log.levels.ERROR)
    end
  end
  local repo = require('compact_lsp.config').repository()
  if not repo then
    return done(false, 'compact-lsp: the plugin does not run from a checkout of the repository (no pyproject.toml '
      .. 'two levels up); install the server yourself and pass its command to setup({ cmd = ... })')
  end
  local python, why = M.find_python()
  if not python then
    return done(false, why)
  end
  local steps = M.steps(repo, python)
  local installed = 'compact-lsp: server installed in ' .. repo .. '/.venv'
  local function failed(i, result)
    local output = vim.trim((result.stderr or '') .. '\n' .. (result.stdout or ''))
    return string.format('compact-lsp: install failed (%s, exit %d): %s', table.concat(steps[i], ' '), result.code,
      output:sub(-1500))
  end
  if opts.wait then
    for i, cmd in ipairs(steps) do
      local result = vim.system(cmd, { text = true }):wait()
      if result.code ~= 0 then
        return done(false, failed(i, result))
      end
    end
    return done(true, installed)
  end
  -- Asynchronous: each step starts from the previous one's exit, on the main loop.
  local function step(i)
    if i > #steps then
      return done(true, installed)
    end
    local ok, err = pcall(vim.system, steps[i], { text = true }, vim.schedule_wrap(function(result)
      if result.code ~= 0 then
        return done(false, failed(i, result))
      end
      step(i + 1)
    end))
    if not ok then
      done(false, 'compact-lsp: install failed: ' .. tostring(err))
    end
  end
  vim.notify('compact-lsp: installing the server into ' .. repo .. '/.venv …', vim.log.levels.INFO)
  step(1)
end

return M
