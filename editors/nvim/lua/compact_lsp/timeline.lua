--- `:Compact timeline`: every compaction of the current session (`compact/timeline`), whatever agent ran it: when,
--- what started it, the tokens before and after against the threshold, the summary's first lines, what was cleared,
--- what the agent re-attached itself and what a hook delivered (the receipt Claude Code recorded). In a float.
local format = require('compact_lsp.format')

local M = {}

local agents = { ['compact-lsp'] = 'compact-lsp', ['claude-code'] = 'Claude Code', codex = 'Codex' }
local kinds = { full = 'compacted', micro = 'cleared old tool results', undo = 'compaction undone' }

--- When, as "2026-12-05 10:01" (UTC), or '' when not recorded.
---@param at string?
---@return string
local function when(at)
  if type(at) ~= 'string' then
    return ''
  end
  local date, time = at:match('^(%d+%-%d+%-%d+)T(%d+:%d+)')
  return date and (date .. ' ' .. time .. ' ') or ''
end

--- The lines of one row.
---@param row table
---@param threshold integer?
---@return string[]
local function row_lines(row, threshold)
  local head = when(row.at) .. (kinds[row.kind] or row.kind) .. ' (' .. tostring(row.trigger or '?') .. ')'
  if row.tokensBefore and row.tokensAfter then
    head = head .. ': ' .. format.change(row.tokensBefore, row.tokensAfter)
  end
  if row.trigger == 'auto' and row.tokensBefore and threshold then
    head = head .. string.format(' (fired at %s, threshold %s)', format.tokens(row.tokensBefore), format.tokens(threshold))
  end
  local lines = { head }
  if type(row.summary) == 'string' and row.summary ~= '' then
    local first = vim.split(vim.trim(row.summary), '\n', { plain = true })
    table.insert(lines, '    summary: ' .. format.fit(first[1], 100) .. (#first > 1 and ' …' or ''))
  end
  if type(row.cleared) == 'table' and #row.cleared > 0 then
    local what = {}
    for _, c in ipairs(row.cleared) do
      table.insert(what, (c.path and format.path(c.path)) or c.tool or c.toolUseId)
    end
    table.insert(lines, '    cleared: ' .. format.fit(table.concat(what, ', '), 100))
  end
  if type(row.reattached) == 'table' and #row.reattached > 0 then
    local paths = vim.tbl_map(format.path, row.reattached)
    table.insert(lines, '    re-attached by the agent: ' .. format.fit(table.concat(paths, ', '), 90))
  end
  for _, receipt in ipairs(type(row.receipts) == 'table' and row.receipts or {}) do
    table.insert(lines, string.format('    hook delivered (%s): %d characters, %s', receipt.hook, receipt.characters,
      receipt.spilled and 'spilled to a file (a preview in the context)' or 'inline'))
  end
  if type(row.kept) == 'table' and #row.kept > 0 then
    table.insert(lines, string.format('    kept by the agent: %d message%s', #row.kept, #row.kept == 1 and '' or 's'))
  end
  return lines
end

--- The float's document for a `compact/timeline` result.
---@param result table
---@return {lines: string[], marks: table[]}
function M.doc(result)
  local lines = {}
  local who = agents[result.agent] or tostring(result.agent)
  local threshold = result.thresholdTokens ~= vim.NIL and result.thresholdTokens or nil
  local rows = type(result.rows) == 'table' and result.rows or {}
  table.insert(lines, string.format('%d compaction%s by %s%s', #rows, #rows == 1 and '' or 's', who,
    threshold and (' · automatic at ' .. format.tokens(threshold) .. ' tokens') or ''))
  table.insert(lines, '')
  if #rows == 0 then
    table.insert(lines, 'No compaction yet in this session.')
  end
  for _, row in ipairs(rows) do
    vim.list_extend(lines, row_lines(row, threshold))
  end
  return { lines = lines, marks = {} }
end

--- `:Compact timeline`: ask for the current session's timeline and show it; `done(err, result)` when answered.
---@param notify fun(msg: string)
---@param done fun(err: lsp.ResponseError?, result: table?)
function M.run(notify, done)
  require('compact_lsp.sessions').current(function(id)
    if not id then
      notify('no session in this workspace yet')
      return done(nil, nil)
    end
    require('compact_lsp.client').request('compact/timeline', { sessionId = id }, function(err, result)
      if not err then
        require('compact_lsp.view').show(M.doc(result), 'Compaction timeline')
      end
      done(err, result)
    end)
  end)
end

return M
