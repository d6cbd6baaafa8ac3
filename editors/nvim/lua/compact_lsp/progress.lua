--- Work-done progress of compact-lsp (full compaction). Neovim's own `$/progress` handler feeds
--- `vim.lsp.status()` and the LspProgress event; this module keeps the running tokens so that
--- `:Compact cancel` can cancel them, and optionally echoes the progress.
local state = require('compact_lsp.state')

local M = {}

---@param client_id integer
---@param token integer|string
---@return string
local function key(client_id, token)
  return client_id .. ':' .. tostring(token)
end

--- LspProgress callback.
---@param ev {data: {client_id: integer, params: lsp.ProgressParams}}
function M.on_progress(ev)
  local client = vim.lsp.get_client_by_id(ev.data.client_id)
  if not client or client.name ~= require('compact_lsp.client').name then
    return
  end
  local params = ev.data.params
  local value = params.value
  if type(value) ~= 'table' or not value.kind then
    return
  end
  local k = key(ev.data.client_id, params.token)
  if value.kind == 'end' then
    state.progress[k] = nil
  else
    local entry = state.progress[k] or { client_id = ev.data.client_id, token = params.token }
    entry.title = value.title or entry.title
    entry.message = value.message or entry.message
    entry.percentage = value.percentage or entry.percentage
    state.progress[k] = entry
  end
  if require('compact_lsp.config').options.progress then
    local text = value.kind == 'end' and ((value.title or 'Compacting') .. ': done')
      or ((value.title or '') .. (value.message and (': ' .. value.message) or ''))
    vim.api.nvim_echo({ { 'compact-lsp: ' .. text } }, false, {})
  end
end

--- Running progress entries of compact-lsp.
---@return {client_id: integer, token: integer|string, title: string?, message: string?, percentage: integer?}[]
function M.running()
  return vim.tbl_values(state.progress)
end

--- Cancel every running compaction (`window/workDoneProgress/cancel`). Returns how many were cancelled.
---@return integer
function M.cancel_all()
  local count = 0
  for k, entry in pairs(state.progress) do
    local client = vim.lsp.get_client_by_id(entry.client_id)
    if client then
      client:notify('window/workDoneProgress/cancel', { token = entry.token })
      count = count + 1
    end
    state.progress[k] = nil
  end
  return count
end

return M
