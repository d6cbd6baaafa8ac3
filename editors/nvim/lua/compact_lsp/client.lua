--- Finding or starting the compact-lsp client, and talking to it.
local M = {}

M.name = 'compact_lsp'

--- How long to wait for a freshly started server to answer `initialize`.
local INIT_TIMEOUT_MS = 15000

--- The running client: the one attached to `bufnr` (default: current buffer) if any, else any.
---@param bufnr integer?
---@return vim.lsp.Client?
function M.get(bufnr)
  local attached = vim.lsp.get_clients({ name = M.name, bufnr = bufnr or 0 })
  if attached[1] then
    return attached[1]
  end
  return vim.lsp.get_clients({ name = M.name })[1]
end

--- The resolved `vim.lsp.Config` with `root_dir` turned into a path, ready for `vim.lsp.start`.
---@param bufnr integer
---@return vim.lsp.ClientConfig
function M.resolve_config(bufnr)
  local config = vim.deepcopy(vim.lsp.config[M.name] or {}) --[[@as vim.lsp.ClientConfig]]
  config.name = M.name
  if type(config.root_dir) == 'function' then
    local root ---@type string?
    local resolve = config.root_dir --[[@as fun(bufnr: integer, on_dir: fun(dir?: string))]]
    resolve(bufnr, function(dir)
      root = dir
    end)
    config.root_dir = root or vim.fn.getcwd()
  elseif not config.root_dir then
    config.root_dir = vim.fn.getcwd()
  end
  return config
end

--- Prefer the client that is already running (any root): the plugin talks to one server.
---@param client vim.lsp.Client
---@return boolean
local function reuse_running(client)
  return client.name == M.name and not client:is_stopped()
end

--- Start the server if none runs and wait until it is initialized. Starting it attaches no buffer: the chat
--- buffer is no document of the project (its text must not join the read-file state).
---@return vim.lsp.Client? client
---@return string? error
function M.ensure()
  local client = M.get()
  local failed = require('compact_lsp.state').failed_start
  if not client and failed then
    return nil, failed
  end
  if not client then
    local target = vim.api.nvim_get_current_buf()
    local config = M.resolve_config(target)
    local missing = require('compact_lsp.config').missing_server(config.cmd)
    if missing then
      return nil, missing
    end
    local id = vim.lsp.start(config, { bufnr = target, attach = false, reuse_client = reuse_running })
    client = id and vim.lsp.get_client_by_id(id) or nil
    if not client then
      return nil, 'compact-lsp: could not start the server (see :checkhealth compact_lsp)'
    end
  end
  if not client.initialized then
    local c = client
    vim.wait(INIT_TIMEOUT_MS, function()
      return c.initialized == true or c:is_stopped()
    end, 20)
    if not client.initialized then
      return nil, 'compact-lsp: the server did not finish starting; :checkhealth compact_lsp says why (its log: ' .. vim.lsp.log.get_filename() .. ')'
    end
  end
  M.adopt(client)
  return client
end

--- A server new to this Neovim (the first, or one started after the last died) gets what the last one had: every
--- open file buffer attached (Neovim attaches only the buffer that started it, or none for the chat), and the
--- current session and its usage asked again, so that the status line shows this server's figures.
---@param client vim.lsp.Client
function M.adopt(client)
  local state = require('compact_lsp.state')
  if state.adopted[client.id] or not client.initialized then
    return
  end
  state.adopted[client.id] = true
  local enabled = not vim.lsp.is_enabled or vim.lsp.is_enabled(M.name)
  for _, buf in ipairs(enabled and vim.api.nvim_list_bufs() or {}) do
    if
      vim.api.nvim_buf_is_loaded(buf)
      and vim.bo[buf].buftype == ''
      and vim.api.nvim_buf_get_name(buf) ~= ''
      and not vim.lsp.buf_is_attached(buf, client.id)
    then
      vim.lsp.buf_attach_client(buf, client.id)
    end
  end
  local sessions = require('compact_lsp.sessions')
  local known = state.session_id
  sessions.refresh(function(err)
    if not err and known and state.session_id == known then
      sessions.select(known) -- the server reports this session's usage again
    end
  end)
end

--- Why `cmd` stops as it starts: the last line its `--version` run writes when it fails that way too (a
--- Python without the server's packages: "ModuleNotFoundError: No module named 'pygls'"), else nil.
---@param cmd string[]
---@return string?
local function why_it_stops(cmd)
  local ok, run = pcall(vim.system, vim.list_extend(require('compact_lsp.health').base_command(cmd), { '--version' }),
    { text = true })
  local done = ok and run:wait(3000) or nil
  if not done or done.code == 0 then
    return nil
  end
  local lines = vim.split(vim.trim((done.stderr or '') .. '\n' .. (done.stdout or '')), '\n', { trimempty = true })
  return lines[#lines] and vim.trim(lines[#lines]) or nil
end

--- A server went away: its figures go with it (the status line shows none until the next one reports). One that
--- failed before it answered `initialize` is said once, with why and what to do, and is not started again.
---@param client_id integer
---@param exit {code: integer, signal: integer, started: boolean, cmd: string[]|function|nil}?
function M.gone(client_id, exit)
  local state = require('compact_lsp.state')
  state.adopted[client_id] = nil
  state.usage = {}
  vim.cmd.redrawstatus({ bang = true })
  -- a stop asked for (SIGTERM: :CompactInstall replacing it, Neovim quitting) is no failure, as Neovim counts it
  local failed = exit and (exit.code ~= 0 or (exit.signal ~= 0 and exit.signal ~= 15))
  if failed and exit.started and not state.failed_start then
    return M.replace(exit)
  end
  if not failed or exit.started or state.failed_start then
    return
  end
  local why = type(exit.cmd) == 'table' and why_it_stops(exit.cmd) or nil
  local what = string.format('compact-lsp: the server stops as it starts (exit %d%s)', exit.code,
    why and (': ' .. why) or '')
  state.failed_start = what .. '; :CompactInstall reinstalls it, :checkhealth compact_lsp says more'
  -- on the line: what happened and the command; the whole in :messages
  require('compact_lsp.words').notify(state.failed_start, vim.log.levels.ERROR,
    { fit = true, short = (why and ('compact-lsp: the server stops as it starts: ' .. why) or what) .. '; :CompactInstall' })
end

--- At most this many servers replace ones that died, in a minute; then the next command starts one.
local REPLACEMENTS, REPLACEMENT_WINDOW_MS = 3, 60000

--- A running server died (killed, crashed): a new one takes its place at once, with the open file buffers
--- attached and the current session asked again (adopt), so that the status line and the chat go on with no
--- command typed. One that keeps dying is not restarted in a loop.
---@param exit {code: integer, signal: integer}
function M.replace(exit)
  local state = require('compact_lsp.state')
  local words = require('compact_lsp.words')
  local now = vim.uv.now()
  state.restarts = vim.tbl_filter(function(at)
    return now - at < REPLACEMENT_WINDOW_MS
  end, state.restarts)
  local how = exit.signal ~= 0 and ('signal ' .. exit.signal) or ('exit ' .. exit.code)
  if #state.restarts >= REPLACEMENTS then
    return words.notify(words.PREFIX .. 'the server stopped again (' .. how .. '), the '
      .. (#state.restarts + 1) .. 'th time in a minute: the next command starts one; its log says why ('
      .. vim.lsp.log.get_filename() .. ')', vim.log.levels.WARN, { fit = true })
  end
  table.insert(state.restarts, now)
  vim.schedule(function()
    if M.get() then
      return -- a command started one meanwhile
    end
    local target = vim.api.nvim_get_current_buf()
    local config = M.resolve_config(target)
    if require('compact_lsp.config').missing_server(config.cmd) then
      return
    end
    local on_init = config.on_init
    config.on_init = function(client, result)
      if on_init then
        on_init(client, result)
      end
      vim.schedule(function()
        M.adopt(client)
        words.notify(words.PREFIX .. 'the server stopped (' .. how .. '); a new one took its place')
      end)
    end
    vim.lsp.start(config, { bufnr = target, attach = false, reuse_client = reuse_running })
  end)
end

--- A server error as one line for the user, in Neovim's terms, prefixed once with "compact-lsp: ".
---@param err lsp.ResponseError|string
---@return string
function M.message(err)
  return require('compact_lsp.words').error(err)
end

--- Send a request; `on_result(err, result)` runs on the main loop. Errors without a callback are shown.
---@param method string
---@param params table
---@param on_result fun(err: lsp.ResponseError?, result: any)?
---@param bufnr integer?
---@return integer? request_id
function M.request(method, params, on_result, bufnr)
  local client, err = M.ensure()
  if not client then
    local failure = { code = -32603, message = err or 'compact-lsp: no server' }
    if on_result then
      on_result(failure, nil)
    else
      vim.notify(M.message(failure.message), vim.log.levels.ERROR)
    end
    return nil
  end
  local ok, request_id = client:request(method, params, function(rpc_err, result)
    if on_result then
      on_result(rpc_err, result)
    elseif rpc_err then
      vim.notify(M.message(rpc_err), vim.log.levels.ERROR)
    end
  end, bufnr)
  return ok and request_id or nil
end

--- The argument object for a `compact.*` command: the tracked session (if any) plus `extra`.
---@param extra table?
---@return table
function M.command_arguments(extra)
  local args = vim.tbl_extend('force', {}, extra or {})
  args.sessionId = require('compact_lsp.state').session_id
  if next(args) == nil then
    return vim.empty_dict()
  end
  return args
end

--- Run a server command through `workspace/executeCommand`.
---@param command string e.g. 'compact.microcompact'
---@param extra table? extra fields of the argument object
---@param on_result fun(err: lsp.ResponseError?, result: any)
function M.execute(command, extra, on_result)
  M.request('workspace/executeCommand', {
    command = command,
    arguments = { M.command_arguments(extra) },
  }, on_result)
end

return M
