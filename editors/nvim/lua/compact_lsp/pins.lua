--- `:Compact pin` / `:Compact unpin` (`compact/pin`, `compact/unpin`): keep a file or a tool result through
--- compaction. A pinned file is re-attached first after a full compaction; a pinned tool result is never cleared.
local client = require('compact_lsp.client')
local format = require('compact_lsp.format')
local state = require('compact_lsp.state')

local M = {}

--- How long `<Tab>` after `:Compact unpin` may wait for the pinned list.
local COMPLETE_TIMEOUT_MS = 800

--- What to pin: a tool-use id (`toolu_…`), a path (relative to the current directory), else the current buffer's
--- file. Nil with a reason when there is nothing to pin.
---@param args string[]
---@return table? params
---@return string? reason
local function target(args)
  local arg = args[1]
  if arg and arg:match('^toolu_') then
    return { toolUseId = arg }
  end
  if arg then
    return { path = vim.fs.normalize(vim.fn.fnamemodify(arg, ':p')) }
  end
  local name = vim.api.nvim_buf_get_name(0)
  if vim.bo.buftype ~= '' or name == '' then
    return nil, 'no file here: open the file, or give a path (or a toolu_ id from :Compact status)'
  end
  return { path = name }
end

--- One pin in the user's words.
---@param item table
---@return string
function M.describe(item)
  if item.kind == 'toolResult' then
    return table.concat(
      vim.tbl_filter(function(s)
        return s ~= ''
      end, { item.tool or 'tool result', item.path and format.path(item.path) or item.toolUseId }),
      ' '
    ) .. (item.inHistory == false and ' (summarised away)' or '')
  end
  return format.path(item.path)
end

--- Pin (`pinned` true) or unpin; `done(err, result)` ends the subcommand.
---@param pinned boolean
---@param args string[]
---@param notify fun(msg: string, level: integer?)
---@param done fun(err: lsp.ResponseError?, result: any)
function M.run(pinned, args, notify, done)
  local params, reason = target(args)
  if not params then
    notify(reason, vim.log.levels.WARN)
    return done(nil, { changed = false, reason = reason })
  end
  params.sessionId = state.session_id
  client.request(pinned and 'compact/pin' or 'compact/unpin', params, function(err, result)
    if not err then
      local what = params.toolUseId or format.path(params.path)
      local list = type(result) == 'table' and result.pinned or {}
      local pins = #list == 0 and 'nothing is pinned now'
        or ('pinned: ' .. table.concat(vim.tbl_map(M.describe, list), ', '))
      notify(
        pinned and string.format('pinned %s (%s)', what, params.path and 're-attached first after a full compaction'
          or 'never cleared by microcompaction') .. '; ' .. pins
          or string.format('unpinned %s; %s', what, pins)
      )
    end
    done(err, result)
  end)
end

--- Completion: files for `pin`, the pinned paths and ids for `unpin`.
---@param pinned boolean
---@param arglead string
---@return string[]
function M.complete(pinned, arglead)
  if pinned then
    return vim.fn.getcompletion(arglead, 'file')
  end
  local c = client.get()
  local items = {}
  if c and c.initialized and state.session_id then
    local response = c:request_sync('compact/status', { sessionId = state.session_id }, COMPLETE_TIMEOUT_MS)
    local status = response and not response.err and response.result or {}
    for _, item in ipairs(type(status) == 'table' and status.pinned or {}) do
      table.insert(items, item.kind == 'file' and item.path or item.toolUseId)
    end
  end
  return vim.tbl_filter(function(s)
    return type(s) == 'string' and vim.startswith(s, arglead)
  end, items)
end

return M
