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

--- Whether the plugin echoes progress itself: `progress = true`, or 'auto' (the default) when no progress plugin
--- (fidget.nvim) shows LspProgress already.
---@return boolean
function M.echoes()
  local option = require('compact_lsp.config').options.progress
  if option == 'auto' or option == nil then
    return package.loaded['fidget'] == nil
  end
  return option == true
end

--- The plain fallback: one line in the message area, "compact-lsp: Compacting conversation 40%: summarising".
---@param value table
---@param title string
function M.echo(value, title)
  local text
  if value.kind == 'end' then
    text = value.message or (title .. ': done')
  else
    local percent = value.percentage and string.format(' %d%%', value.percentage) or ''
    local message = value.message and value.message ~= title and (': ' .. value.message) or ''
    text = title .. percent .. message
  end
  if value.kind == 'end' and text:match('^Compaction did not happen') then
    -- said by the command that asked (in the user's words), or by the server's warning for an automatic one
    require('compact_lsp.handlers').emit('CompactLspProgressEcho', { text = text })
    return
  end
  if value.kind == 'end' and #vim.api.nvim_list_uis() > 0 then
    -- the end can be long ("did not happen: …"): cut to the line, whole in :messages, no hit-enter prompt
    require('compact_lsp.words').echo_fitted('compact-lsp: ' .. text)
  else
    vim.api.nvim_echo({ { require('compact_lsp.format').fit('compact-lsp: ' .. text, math.max(vim.v.echospace, 20)) } }, value.kind == 'end', {})
  end
  if value.kind == 'end' then
    require('compact_lsp.handlers').emit('CompactLspProgressEcho', { text = text })
  end
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
  -- `report` and `end` carry no title: take the one `begin` gave
  local title = value.title or (state.progress[k] and state.progress[k].title) or 'Compacting conversation'
  if value.kind == 'end' then
    state.progress[k] = nil
  else
    local entry = state.progress[k] or { client_id = ev.data.client_id, token = params.token }
    entry.title = value.title or entry.title
    entry.message = value.message or entry.message
    entry.percentage = value.percentage or entry.percentage
    state.progress[k] = entry
  end
  if M.echoes() then
    M.echo(value, title)
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
