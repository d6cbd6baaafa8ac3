--- `:Compact timeline`: every compaction of the current session (`compact/timeline`), whatever agent ran it: when,
--- what started it, the tokens before and after against the threshold, the summary's first line, each result that
--- was cleared, what the agent re-attached itself and what a hook delivered (the receipt the agent recorded: its
--- characters, inline or spilled, the files it held). In a float: `<CR>` on a summary opens it whole, on a cleared
--- result opens what it said, both read-only; `w` opens the session's working set (`compact/workingSet`).
local format = require('compact_lsp.format')

local M = {}

local agents = { ['compact-lsp'] = 'compact-lsp', ['claude-code'] = 'Claude Code', codex = 'Codex', ['qwen-code'] = 'Qwen Code', ['gemini-cli'] = 'Gemini CLI' }
local kinds = { full = 'compacted', micro = 'cleared old tool results', undo = 'compaction undone' }
--- The float's help line: its keys, in the order a reader needs them.
M.HELP = '<CR> on a summary or a cleared result opens it · w the working set · q closes'

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

---@param value any
---@return any
local function given(value)
  return value ~= vim.NIL and value or nil
end

--- The lines of one row, and what `<CR>` opens on each (by line offset in the row).
---@param row table
---@param threshold integer?
---@return string[], table<integer, table>
local function row_lines(row, threshold)
  local head = when(row.at) .. (kinds[row.kind] or row.kind) .. ' (' .. tostring(row.trigger or '?') .. ')'
  if given(row.tokensBefore) and given(row.tokensAfter) then
    head = head .. ': ' .. format.change(row.tokensBefore, row.tokensAfter)
  end
  if row.trigger == 'auto' and given(row.tokensBefore) and threshold then
    head = head .. string.format(' (fired at %s, threshold %s)', format.tokens(row.tokensBefore), format.tokens(threshold))
  end
  local lines, opens = { head }, {}
  if type(row.summary) == 'string' and row.summary ~= '' then
    local first = vim.split(vim.trim(row.summary), '\n', { plain = true })
    table.insert(lines, '    summary: ' .. format.fit(first[1], 90) .. '  (<CR> opens it)')
    opens[#lines] = { summary = row.summary }
  end
  for _, c in ipairs(type(row.cleared) == 'table' and row.cleared or {}) do
    local what = (given(c.path) and format.path(c.path)) or given(c.tool) or c.toolUseId
    local tokens = given(c.tokens) and (' · ' .. format.tokens(c.tokens) .. ' tokens') or ''
    table.insert(lines, '    cleared: ' .. format.fit(what, 70) .. tokens .. '  (<CR> opens it)')
    opens[#lines] = { cleared = c }
  end
  if type(row.reattached) == 'table' and #row.reattached > 0 then
    local paths = vim.tbl_map(format.path, row.reattached)
    table.insert(lines, '    re-attached by the agent: ' .. format.fit(table.concat(paths, ', '), 90))
  end
  for _, receipt in ipairs(type(row.receipts) == 'table' and row.receipts or {}) do
    local files = type(receipt.files) == 'table' and #receipt.files > 0
        and (', files ' .. format.fit(table.concat(receipt.files, ', '), 60))
      or ', no file content'
    table.insert(lines, string.format('    hook delivered (%s): %d characters, %s%s', receipt.hook, receipt.characters,
      receipt.spilled and 'spilled (a preview in the context)' or 'inline', files))
  end
  if type(row.kept) == 'table' and #row.kept > 0 then
    table.insert(lines, string.format('    kept by the agent: %d message%s', #row.kept, #row.kept == 1 and '' or 's'))
  end
  return lines, opens
end

--- The float's document for a `compact/timeline` result, and what `<CR>` opens per line (1-based).
---@param result table
---@return {lines: string[], marks: table[]}, table<integer, table>
function M.doc(result)
  local lines, opens = {}, {}
  local who = agents[result.agent] or tostring(result.agent)
  local threshold = not given(result.disabledBy) and given(result.thresholdTokens) or nil
  local rows = type(result.rows) == 'table' and result.rows or {}
  table.insert(lines, string.format('%d compaction%s by %s%s', #rows, #rows == 1 and '' or 's', who,
    threshold and (' · automatic at ' .. format.tokens(threshold) .. ' tokens') or ''))
  if given(result.disabledBy) then
    table.insert(lines, 'automatic compaction is off: ' .. result.disabledBy)
  end
  local help = #lines -- 0-based: the line the help goes on
  table.insert(lines, M.HELP)
  table.insert(lines, '')
  if #rows == 0 then
    table.insert(lines, 'No compaction yet in this session.')
  end
  for _, row in ipairs(rows) do
    local row_text, row_opens = row_lines(row, threshold)
    for offset, what in pairs(row_opens) do
      opens[#lines + offset] = what
    end
    vim.list_extend(lines, row_text)
  end
  return { lines = lines, marks = { { line = help, col = 0, end_col = #M.HELP, hl = 'Comment' } } }, opens
end

--- Text in a read-only scratch buffer in a new split, named `name`.
---@param name string
---@param text string
---@param filetype string?
local function show_read_only(name, text, filetype)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  if filetype then
    vim.bo[buf].filetype = filetype
  end
end

--- A tool result's text (a string, or its text blocks).
---@param content any
---@return string
local function result_text(content)
  if type(content) == 'string' then
    return content
  end
  local parts = {}
  for _, block in ipairs(type(content) == 'table' and content or {}) do
    if type(block) == 'table' and type(block.text) == 'string' then
      table.insert(parts, block.text)
    end
  end
  return table.concat(parts, '\n')
end

--- The result the model got for `tool_use_id` before it was cleared, from the session's history (`compact/transcript`).
---@param session_id string
---@param cleared table
local function open_cleared(session_id, cleared)
  require('compact_lsp.client').request('compact/transcript', { sessionId = session_id }, function(err, result)
    if err then
      return require('compact_lsp.words').notify(require('compact_lsp.words').error(err), vim.log.levels.ERROR)
    end
    for _, entry in ipairs(result and result.entries or {}) do
      local content = entry.kind == 'message' and entry.message and entry.message.content
      for _, block in ipairs(type(content) == 'table' and content or {}) do
        if type(block) == 'table' and block.type == 'tool_result' and block.tool_use_id == cleared.toolUseId then
          local what = given(cleared.path) and format.path(cleared.path) or given(cleared.tool) or cleared.toolUseId
          return show_read_only('cleared result: ' .. what, result_text(block.content))
        end
      end
    end
    require('compact_lsp.words').notify('compact-lsp: this result is no longer in the session\'s history')
  end)
end

--- `:Compact timeline`: ask for the current session's timeline and show it; `done(err, result)` when answered,
--- `working_set_done(err, result)` when `w` opened the session's working set.
---@param notify fun(msg: string)
---@param done fun(err: lsp.ResponseError?, result: table?)
---@param working_set_done fun(err: lsp.ResponseError?, result: table?)
function M.run(notify, done, working_set_done)
  require('compact_lsp.sessions').current(function(id)
    if not id then
      notify('no session in this workspace yet')
      return done(nil, nil)
    end
    require('compact_lsp.client').request('compact/timeline', { sessionId = id }, function(err, result)
      if not err then
        local doc, opens = M.doc(result)
        local buf = require('compact_lsp.view').show(doc, 'Compaction timeline')
        vim.keymap.set('n', '<CR>', function()
          local what = opens[vim.api.nvim_win_get_cursor(0)[1]]
          if not what then
            return
          end
          vim.api.nvim_win_close(0, true) -- a float cannot be split: the text opens below the window under it
          if what.summary then
            show_read_only('summary of compaction', what.summary, 'markdown')
          else
            open_cleared(id, what.cleared)
          end
        end, { buffer = buf, nowait = true, desc = 'Open the summary or the cleared result, read-only' })
        vim.keymap.set('n', 'w', function()
          vim.api.nvim_win_close(0, true) -- the working set opens below the window under the float
          require('compact_lsp.working_set').open(id, working_set_done)
        end, { buffer = buf, nowait = true, desc = "Open this session's working set" })
      end
      done(err, result)
    end)
  end)
end

return M
