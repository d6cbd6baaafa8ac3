--- `:Compact workingset`: the current session's working set (`compact/workingSet`), the ledger the model gets after
--- a compaction, in a read-only scratch buffer: the last test and build commands with their exit status and the line
--- that decides, the files the agent changed (+N −M), the files it read that changed on disk since, the open plan
--- items. `<CR>` or `gf` on a file's line opens the file (in the window the buffer was opened from); `q` closes it.
local M = {}

local ns = vim.api.nvim_create_namespace('compact_lsp_working_set')

local SECTIONS = {
  { kind = 'command', title = 'Commands' },
  { kind = 'edited', outside = true, title = 'Changed by you, then by someone else since (read them again)' },
  { kind = 'edited', outside = false, title = 'Changed by you' },
  { kind = 'stale', title = 'Read, and changed on disk since (read them again)' },
  { kind = 'plan', title = 'Open plan items' },
}

--- A row's line in the buffer: a file's path first (what `gf` sees), then its figures.
---@param row table
---@return string
local function row_text(row)
  local line = type(row.line) == 'string' and row.line or ''
  if row.path then
    return '  ' .. (line:gsub('^%- ', ''))
  end
  return '  ' .. line
end

--- The buffer's lines for a `compact/workingSet` result, and the file each line opens (by 1-based line).
---@param result table
---@return string[] lines
---@return table<integer, string> files
function M.doc(result)
  local rows = type(result.rows) == 'table' and result.rows or {}
  local chars = tonumber(result.characters) or 0
  local lines = {
    string.format('Working set · %d fact%s · the model gets %d characters of it after a compaction', #rows,
      #rows == 1 and '' or 's', chars),
    '<CR> or gf on a file opens it · q closes',
  }
  local files = {}
  if #rows == 0 then
    table.insert(lines, '')
    table.insert(lines, 'Nothing yet: no file changed, no stale read, no command with a recorded end.')
  end
  for _, section in ipairs(SECTIONS) do
    local shown = vim.tbl_filter(function(row)
      return row.kind == section.kind and (section.outside == nil or (row.outside == true) == section.outside)
    end, rows)
    if #shown > 0 then
      table.insert(lines, '')
      table.insert(lines, section.title)
      for _, row in ipairs(shown) do
        table.insert(lines, row_text(row))
        if type(row.absolutePath) == 'string' and not row.gone then
          files[#lines] = row.absolutePath
        end
      end
    end
  end
  return lines, files
end

--- Open the file of the cursor's line, in the window the working set was opened from when it is still there.
---@param files table<integer, string>
---@param from integer
local function open_file(files, from)
  local path = files[vim.api.nvim_win_get_cursor(0)[1]]
  if not path then
    return vim.notify('compact-lsp: no file on this line', vim.log.levels.INFO)
  end
  if vim.api.nvim_win_is_valid(from) and from ~= vim.api.nvim_get_current_win() then
    vim.api.nvim_set_current_win(from)
  end
  vim.cmd.edit(vim.fn.fnameescape(vim.fn.fnamemodify(path, ':~:.')))
end

--- Show a result in the session's scratch buffer (made once, refreshed in place); returns the buffer.
---@param session_id string
---@param result table
---@return integer
function M.show(session_id, result)
  local name = 'compact-lsp://working-set/' .. session_id
  local from = vim.api.nvim_get_current_win()
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = 'wipe'
    vim.bo[buf].filetype = 'compact_lsp_working_set'
  end
  local lines, files = M.doc(result)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for i, line in ipairs(lines) do
    local hl = (i == 1 and 'Title') or (i == 2 and 'Comment') or (line ~= '' and not vim.startswith(line, ' ') and 'Label')
    if hl then
      vim.api.nvim_buf_set_extmark(buf, ns, i - 1, 0, { end_col = #line, hl_group = hl })
    end
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright ' .. math.min(#lines, math.floor(vim.o.lines / 2)) .. 'split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  for _, lhs in ipairs({ '<CR>', 'gf' }) do
    vim.keymap.set('n', lhs, function()
      open_file(files, from)
    end, { buffer = buf, nowait = true, desc = 'Open this file' })
  end
  vim.keymap.set('n', 'q', '<cmd>close<cr>', { buffer = buf, nowait = true, desc = 'Close' })
  return buf
end

--- Ask for `session_id`'s working set and show it; `done(err, result)` when answered (an error is the caller's to
--- tell). `:Compact workingset` opens the current session's; the timeline's `w` the session it shows.
---@param session_id string
---@param done fun(err: lsp.ResponseError?, result: table?)
function M.open(session_id, done)
  require('compact_lsp.client').request('compact/workingSet', { sessionId = session_id }, function(err, result)
    if not err then
      M.show(session_id, result)
    end
    done(err, result)
  end)
end

--- `:Compact workingset`: ask for the current session's working set and show it; `done(err, result)` when answered.
---@param notify fun(msg: string)
---@param done fun(err: lsp.ResponseError?, result: table?)
function M.run(notify, done)
  require('compact_lsp.sessions').current(function(id)
    if not id then
      notify('no session in this workspace yet')
      return done(nil, nil)
    end
    M.open(id, done)
  end)
end

--- The `:Compact workingset` entry of commands.lua's table; `done(name, err, result)` reports its end.
---@param notify fun(msg: string)
---@param done fun(name: string, err: lsp.ResponseError?, result: table?)
---@return compact_lsp.Subcommand
function M.subcommand(notify, done)
  return {
    desc = 'what the agent changed, what went stale, what it last ran: the ledger, files open with <CR> or gf',
    run = function()
      M.run(notify, function(err, result)
        done('workingset', err, result)
      end)
    end,
  }
end

return M
