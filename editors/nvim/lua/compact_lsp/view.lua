--- Floating windows for `:Compact status` and `:Compact files`.
local format = require('compact_lsp.format')

local M = {}

--- Kinds of context usage, in bar order, with their labels and highlight groups.
M.kinds = {
  { key = 'system', label = 'system', hl = 'CompactLspKindSystem' },
  { key = 'memory', label = 'memory', hl = 'CompactLspKindMemory' },
  { key = 'userText', label = 'user', hl = 'CompactLspKindUser' },
  { key = 'assistantText', label = 'assistant', hl = 'CompactLspKindAssistant' },
  { key = 'toolUse', label = 'tool calls', hl = 'CompactLspKindToolUse' },
  { key = 'toolResult', label = 'tool results', hl = 'CompactLspKindToolResult' },
  { key = 'attachments', label = 'attachments', hl = 'CompactLspKindAttachments' },
}

local BAR_WIDTH = 50
--- Widest a path may be in a float line before its middle is cut.
local PATH_WIDTH = 60

--- Label of a usage kind ('toolResult' -> 'tool result').
---@param key string?
---@return string
function M.kind_label(key)
  for _, kind in ipairs(M.kinds) do
    if kind.key == key then
      return (kind.label:gsub('s$', ''))
    end
  end
  -- a kind this plugin does not know yet: its name in words ('toolResult' -> 'tool result'), never 'unknown'
  local words = tostring(key or 'item'):gsub('_', ' '):gsub('(%l)(%u)', '%1 %2'):lower()
  return words
end
local ns = vim.api.nvim_create_namespace('compact_lsp.view')

--- Lines with highlights, built up then shown in one go.
---@class compact_lsp.Doc
---@field lines string[]
---@field marks {line: integer, col: integer, end_col: integer, hl: string}[]
local Doc = {}
Doc.__index = Doc

---@return compact_lsp.Doc
function Doc.new()
  return setmetatable({ lines = {}, marks = {} }, Doc)
end

--- Add a line made of chunks `{text, hl?}`.
---@param chunks (string|{[1]: string, [2]: string?})[]
function Doc:add(chunks)
  local text, col = {}, 0
  for _, chunk in ipairs(chunks) do
    local s, hl = chunk, nil
    if type(chunk) == 'table' then
      s, hl = chunk[1], chunk[2]
    end
    ---@cast s string
    if hl then
      table.insert(self.marks, { line = #self.lines, col = col, end_col = col + #s, hl = hl })
    end
    table.insert(text, s)
    col = col + #s
  end
  table.insert(self.lines, table.concat(text))
end

function Doc:blank()
  table.insert(self.lines, '')
end

---@param title string
function Doc:heading(title)
  self:add({ { title, 'Title' } })
end

--- The usage bar: one segment per kind, scaled to the context window (largest remainders get the spare cells,
--- so the cells add up to the used share); free space dimmed.
---@param usage compact_lsp.Usage
---@return (string|{[1]: string, [2]: string?})[]
local function usage_bar(usage)
  local window = math.max(usage.contextWindow or 1, 1)
  local used_cells = math.min(BAR_WIDTH, math.floor(math.min(usage.total or 0, window) / window * BAR_WIDTH + 0.5))
  local shares, given = {}, 0
  for i, kind in ipairs(M.kinds) do
    local exact = ((usage.byKind or {})[kind.key] or 0) / window * BAR_WIDTH
    shares[i] = { kind = kind, cells = math.floor(exact), rest = exact - math.floor(exact) }
    given = given + shares[i].cells
  end
  local order = {}
  for i in ipairs(shares) do
    order[i] = i
  end
  table.sort(order, function(a, b)
    return shares[a].rest > shares[b].rest
  end)
  for _, i in ipairs(order) do
    if given >= used_cells then
      break
    end
    shares[i].cells = shares[i].cells + 1
    given = given + 1
  end
  local chunks, used = {}, 0
  for _, share in ipairs(shares) do
    local cells = math.min(share.cells, BAR_WIDTH - used)
    if cells > 0 then
      table.insert(chunks, { string.rep('█', cells), share.kind.hl })
      used = used + cells
    end
  end
  table.insert(chunks, { string.rep('░', BAR_WIDTH - used), 'NonText' })
  return chunks
end

---@param usage compact_lsp.Usage
---@param doc compact_lsp.Doc
local function render_usage(usage, doc)
  local level_hl = usage.level == 'critical' and 'CompactLspCritical'
    or usage.level == 'warning' and 'CompactLspWarning'
    or 'CompactLspOk'
  doc:add({
    'Context  ',
    { string.format('%s / %s tokens  %s%%', format.tokens(usage.total), format.tokens(usage.contextWindow), format.percent(usage.percent)), level_hl },
    '  ',
    { usage.level or 'ok', level_hl },
  })
  local thresholds = {}
  if usage.warningThreshold then
    table.insert(thresholds, 'warning at ' .. format.tokens(usage.warningThreshold))
  end
  if usage.autoCompactThreshold then
    table.insert(thresholds, 'auto-compact at ' .. format.tokens(usage.autoCompactThreshold))
  end
  if #thresholds > 0 then
    doc:add({ { table.concat(thresholds, ', '), 'Comment' } })
  end
  if usage.reported then
    -- Two figures that differ: say which is which and why.
    doc:add({
      {
        string.format(
          '%s estimated here (the messages, counted offline); %s reported by the API for the last request',
          format.tokens(usage.total),
          format.tokens(usage.reported)
        ),
        'Comment',
      },
    })
    doc:add({ { '  (the API also counts its system prompt and tool definitions; the status line shows the estimate)', 'Comment' } })
  end
  doc:add(usage_bar(usage))
  local legend = {}
  for _, kind in ipairs(M.kinds) do
    local tokens = (usage.byKind or {})[kind.key] or 0
    if tokens > 0 then
      vim.list_extend(legend, { { '■ ', kind.hl }, kind.label .. ' ' .. format.tokens(tokens) .. '  ' })
    end
  end
  if #legend > 0 then
    doc:add(legend)
  end
end

--- One line per item: "  12.3k  tool result  read_file src/app.py". The command or path, never a tool-use id.
---@param item table
---@param with_kind boolean? show the item's kind (biggest items mix kinds)
---@return string
local function item_line(item, with_kind)
  local parts = { string.format('  %7s', format.tokens(item.tokens)) }
  if with_kind and item.kind then
    table.insert(parts, M.kind_label(item.kind))
  end
  if item.path then
    table.insert(parts, ((item.tool and (item.tool .. ' ')) or '') .. format.path_fit(item.path, PATH_WIDTH))
  elseif item.label then
    local label = tostring(item.label):gsub('%s+', ' ')
    table.insert(parts, vim.fn.strchars(label) > PATH_WIDTH and (vim.fn.strcharpart(label, 0, PATH_WIDTH - 1) .. '…') or label)
  elseif item.tool or item.name then
    table.insert(parts, tostring(item.tool or item.name))
  end
  return table.concat(parts, '  ')
end

local freshness_hl = { fresh = 'DiagnosticOk', stale = 'DiagnosticWarn', deleted = 'DiagnosticError' }
--- Freshness in words: `unknown` is a read this Neovim's server cannot check (no copy on this machine, say).
local freshness_words = { fresh = 'fresh', stale = 'stale', deleted = 'deleted', unknown = 'unchecked' }

--- Build the status document.
---@param status compact_lsp.Status
---@return compact_lsp.Doc
function M.status_doc(status)
  local doc = Doc.new()
  doc:add({
    { 'compact-lsp', 'Title' },
    status.title and ('  ' .. status.title) or '',
    { '  ' .. tostring(status.sessionId), 'Comment' },
    status.messageCount
        and { string.format('  %d message%s', status.messageCount, status.messageCount == 1 and '' or 's'), 'Comment' }
      or '',
    status.compacting and { '  compacting…', 'DiagnosticWarn' } or '',
  })
  doc:blank()
  if status.usage then
    render_usage(status.usage, doc)
    require('compact_lsp.next_compaction').add_lines(doc, status.sessionId, status.usage)
  end

  local biggest = status.biggestItems
  local biggest_title = 'Biggest items'
  if type(biggest) ~= 'table' or #biggest == 0 then
    -- Without an item list from the server, the files whose content is still in the conversation are the
    -- next best answer (a cleared read no longer costs anything).
    biggest = vim.tbl_filter(function(file)
      return file.inHistory == true
    end, status.readFiles or {})
    biggest_title = 'Biggest files in context'
    table.sort(biggest, function(a, b)
      return (a.tokens or 0) > (b.tokens or 0)
    end)
  end
  if #biggest > 0 then
    doc:blank()
    doc:heading(biggest_title)
    for i = 1, math.min(#biggest, 8) do
      doc:add({ item_line(biggest[i], true) })
    end
  end

  -- After a full compaction the results an earlier microcompaction cleared are summarised away: not shown.
  local micro = status.lastMicrocompaction
  local superseded = type(status.lastCompaction) == 'table'
    and not (micro and micro.createdAt and status.lastCompaction.createdAt and micro.createdAt > status.lastCompaction.createdAt)
  if type(micro) == 'table' and not superseded and micro.changed ~= false then
    doc:blank()
    local cleared = micro.cleared or {}
    doc:heading(
      string.format(
        'Cleared results (last microcompaction%s: %s)',
        micro.trigger and (', ' .. micro.trigger) or '',
        format.change(micro.tokensBefore, micro.tokensAfter)
      )
    )
    if #cleared == 0 then
      doc:add({ { '  nothing cleared', 'Comment' } })
    end
    for i = 1, math.min(#cleared, 10) do
      doc:add({ item_line(cleared[i]) })
    end
    if #cleared > 10 then
      doc:add({ { string.format('  … and %d more', #cleared - 10), 'Comment' } })
    end
    for _, kept in ipairs(micro.protected or {}) do
      doc:add({ { '  kept (managed memory)  ', 'DiagnosticOk' }, format.path_fit(kept.path, PATH_WIDTH) })
    end
  end

  local pinned = status.pinned
  if type(pinned) == 'table' and #pinned > 0 then
    doc:blank()
    doc:heading('Pinned (kept through compaction)')
    for _, item in ipairs(pinned) do
      doc:add({ '  ', { item.kind == 'file' and 'file  ' or 'result', 'Special' }, '  ' .. require('compact_lsp.pins').describe(item) })
    end
  end

  local full = status.lastCompaction
  if type(full) == 'table' then
    doc:blank()
    doc:heading(
      string.format(
        'Last compaction: %s%s',
        format.change(full.tokensBefore, full.tokensAfter),
        full.fallback and ' (offline summary: the API failed)'
          or full.summarizer and (' (' .. full.summarizer .. ' summary)')
          or ''
      )
    )
  end

  doc:blank()
  doc:heading('Read files')
  local files = status.readFiles or {}
  if #files == 0 then
    doc:add({ { '  none yet', 'Comment' } })
  end
  for _, file in ipairs(files) do
    local flags = {}
    for _, flag in ipairs({ 'inHistory', 'open', 'dirty' }) do
      if file[flag] then
        table.insert(flags, flag == 'inHistory' and 'in history' or flag)
      end
    end
    doc:add({
      '  ',
      { string.format('%-9s', freshness_words[file.freshness] or 'unchecked'), freshness_hl[file.freshness] or 'Comment' },
      string.format(' %7s  %-6s %s', format.tokens(file.tokens), file.range or '', format.path_fit(file.path, PATH_WIDTH)),
      #flags > 0 and { '  (' .. table.concat(flags, ', ') .. ')', 'Comment' } or '',
    })
  end
  return doc
end

--- Build the rehydration preview document.
---@param preview compact_lsp.RehydrationPreview
---@return compact_lsp.Doc
function M.files_doc(preview)
  local doc = Doc.new()
  local candidates = preview.candidates or {}
  local budget = preview.budget
  local budget_tokens = type(budget) == 'table' and (budget.tokenBudget or budget.tokens) or budget
  local included, used = 0, 0
  for _, c in ipairs(candidates) do
    if c.included then
      included = included + 1
      used = used + (c.tokens or 0)
    end
  end
  -- older servers listed every candidate and sent no count
  local unlisted = type(preview.unlisted) == 'number' and preview.unlisted or 0
  doc:add({
    {
      string.format(
        '%d of %d files would be re-attached after a full compaction: %s of %s tokens',
        included,
        #candidates + unlisted,
        format.tokens(used),
        format.tokens(budget_tokens)
      ),
      'Comment',
    },
  })
  doc:blank()
  if #candidates == 0 then
    doc:add({ { '  no read files to re-attach', 'Comment' } })
  end
  for _, c in ipairs(candidates) do
    doc:add({
      '  ',
      c.included and { '✓', 'DiagnosticOk' } or { '✗', 'DiagnosticError' },
      string.format(' %7s  %5.2f  %s', format.tokens(c.tokens), tonumber(c.score) or 0, format.path_fit(c.path, PATH_WIDTH)),
      c.reason and { '  ' .. c.reason, 'Comment' } or '',
    })
  end
  if unlisted > 0 then
    doc:add({
      {
        string.format(
          '  …and %d more left out, not listed: older, past the budget or the file limit (not read again)',
          unlisted
        ),
        'Comment',
      },
    })
  end
  return doc
end

--- Show a document in a centred float; `q` or <Esc> closes it. Returns the buffer and window.
---@param doc compact_lsp.Doc
---@param title string
---@return integer buf
---@return integer win
function M.show(doc, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, doc.lines)
  for _, mark in ipairs(doc.marks) do
    vim.api.nvim_buf_set_extmark(buf, ns, mark.line, mark.col, { end_col = mark.end_col, hl_group = mark.hl })
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'compact_lsp_view'
  local width = 20
  for _, line in ipairs(doc.lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width + 2, math.max(vim.o.columns - 4, 20))
  local height = math.min(#doc.lines, math.max(vim.o.lines - 6, 3))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = 'minimal',
    border = 'rounded',
    title = ' ' .. title .. ' ',
    title_pos = 'center',
  })
  vim.wo[win].wrap = false
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    vim.keymap.set('n', lhs, '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'Close' })
  end
  return buf, win
end

return M
