--- A notice to the user when a file the agent read changes on disk outside Neovim (the server tells the model on
--- its next turn; this tells the person). Files are watched from the agent's read until the first change, which is
--- reported once; the agent's own writes and Neovim's own `:w` are not reported.
local M = {}

--- At most this many files are watched at once (the oldest read is dropped first).
local MAX_WATCHED = 200
--- Changes this close to the agent's or Neovim's own write of the file are theirs.
local OWN_WRITE_MS = 1500
--- Events of one change arrive in bursts (truncate, write, rename): report once after this quiet time.
local SETTLE_MS = 200

---@class compact_lsp.Watched
---@field handle uv.uv_fs_event_t
---@field timer uv.uv_timer_t?
---@field order number when the watch started (hrtime): the oldest goes first

local state = require('compact_lsp.state')
local watched = state.watched
local own_writes = state.own_writes

---@param path string
local function unwatch(path)
  local w = watched[path]
  if w then
    watched[path] = nil
    if w.timer and not w.timer:is_closing() then
      w.timer:close()
    end
    if not w.handle:is_closing() then
      w.handle:close()
    end
  end
end

--- The agent or Neovim itself is about to write (or just wrote) `path`.
---@param path string absolute
function M.own_write(path)
  own_writes[path] = vim.uv.now()
end

---@param path string
local function report(path)
  unwatch(path)
  local own = own_writes[path]
  if own and vim.uv.now() - own < OWN_WRITE_MS then
    M.read(path) -- the change was expected; watch the new file (an atomic write replaces it)
    return
  end
  if require('compact_lsp.config').options.notify_changes ~= false then
    local what = vim.uv.fs_stat(path) and 'changed on disk' or 'was deleted'
    vim.notify(
      string.format(
        'compact-lsp: %s %s since the agent read it; the agent is told at its next turn',
        vim.fn.fnamemodify(path, ':~:.'),
        what
      ),
      vim.log.levels.INFO
    )
  end
  require('compact_lsp.handlers').emit('CompactLspFileChanged', { path = path })
end

--- Watch `path` (a file the agent just read) until it changes.
---@param path string absolute
function M.read(path)
  if watched[path] or not vim.uv.fs_stat(path) then
    return
  end
  if vim.tbl_count(watched) >= MAX_WATCHED then
    local oldest, order = nil, math.huge
    for p, w in pairs(watched) do
      if w.order < order then
        oldest, order = p, w.order
      end
    end
    unwatch(oldest)
  end
  local handle = vim.uv.new_fs_event()
  if not handle then
    return
  end
  local entry = { handle = handle, order = vim.uv.hrtime() } ---@type compact_lsp.Watched
  local ok = handle:start(path, {}, function(err)
    if err then
      return
    end
    vim.schedule(function()
      if watched[path] ~= entry then
        return
      end
      if entry.timer then
        entry.timer:stop()
      else
        entry.timer = vim.uv.new_timer()
      end
      entry.timer:start(SETTLE_MS, 0, vim.schedule_wrap(function()
        if watched[path] == entry then
          report(path)
        end
      end))
    end)
  end)
  if ok ~= 0 and ok ~= true then
    handle:close()
    return
  end
  watched[path] = entry
end

--- Watch the files the model saw, as a status lists them (an agent that talks to the server directly reads files
--- this Neovim never saw being read): reads, writes and edits still fresh.
---@param status compact_lsp.Status
---@param root string?
function M.from_status(status, root)
  local edits = require('compact_lsp.edits')
  for _, file in ipairs(type(status) == 'table' and status.readFiles or {}) do
    if file.kind ~= 'editor' and file.freshness == 'fresh' and type(file.path) == 'string' then
      M.read(edits.absolute(file.path, root))
    end
  end
end

--- Stop watching everything.
function M.clear()
  for path in pairs(watched) do
    unwatch(path)
  end
end

local group = vim.api.nvim_create_augroup('compact_lsp.watch', { clear = true })
vim.api.nvim_create_autocmd({ 'BufWritePre', 'BufWritePost' }, {
  group = group,
  callback = function(ev)
    M.own_write(vim.fs.normalize(vim.fn.fnamemodify(ev.match, ':p')))
  end,
})
vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = M.clear })

return M
