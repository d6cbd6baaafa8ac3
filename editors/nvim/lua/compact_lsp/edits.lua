--- The agent's writes meet the user's buffers: after a successful `edit_file`/`write_file` an unmodified buffer of
--- that file is reloaded as `:checktime` with 'autoread' would (cursor, marks and undo kept); a buffer with unsaved
--- changes is never reloaded over: an `edit_file` whose old text is found in it is applied to the buffer too (the
--- buffer then holds both: its base is the agent's file, the user's changes stay unsaved on top); otherwise the
--- user is told how to choose, and Neovim's own check still guards a later `:w` of the diverged buffer.
local M = {}

--- Tools that change a file on disk, and the input field that names it.
M.writing_tools = { edit_file = 'file_path', write_file = 'file_path' }

--- The absolute path a tool input names, relative paths taken from the server's root.
---@param path string
---@param root string?
---@return string
function M.absolute(path, root)
  if not vim.startswith(path, '/') and not path:match('^%a:[/\\]') then
    path = (root or vim.fn.getcwd()) .. '/' .. path
  end
  return vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
end

--- The loaded buffer of `path`, if any.
---@param path string absolute
---@return integer?
function M.buffer_of(path)
  local real = vim.uv.fs_realpath(path) or path
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= '' and (name == path or (vim.uv.fs_realpath(name) or name) == real) then
        return buf
      end
    end
  end
  return nil
end

--- The modified buffer of `path`, if one has unsaved changes.
---@param path string absolute
---@return integer?
function M.modified_buffer(path)
  local buf = M.buffer_of(path)
  return buf and vim.bo[buf].modified and buf or nil
end

--- Run `:checktime` on `buf` with 'autoread' set for it, so that an unmodified buffer reloads without a prompt.
---@param buf integer
local function checktime(buf)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('setlocal autoread')
    vim.cmd.checktime(buf)
    vim.cmd('setlocal autoread<')
  end)
end

--- Give `buf` the file's new text as its base (so `:w` does not warn that the file changed since it was read)
--- and then `lines` on top as unsaved changes. Both steps are undoable ('undoreload').
---@param buf integer
---@param lines string[]
local function rebase(buf, lines)
  local wins = vim.fn.win_findbuf(buf)
  local views = {}
  for _, win in ipairs(wins) do
    views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
  end
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent edit!')
  end)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  for win, view in pairs(views) do
    vim.api.nvim_win_call(win, function()
      vim.fn.winrestview(view)
    end)
  end
end

--- Byte offset of each start of `needle` in `haystack`.
---@param haystack string
---@param needle string
---@return integer[]
local function occurrences(haystack, needle)
  local found, from = {}, 1
  while needle ~= '' do
    local s = haystack:find(needle, from, true)
    if not s then
      break
    end
    table.insert(found, s)
    from = s + #needle
  end
  return found
end

--- Row and column (0-based) of byte `offset` (1-based) in `lines` joined by newlines.
---@param lines string[]
---@param offset integer
---@return integer row
---@return integer col
local function position(lines, offset)
  local remaining = offset - 1
  for i, line in ipairs(lines) do
    if remaining <= #line then
      return i - 1, remaining
    end
    remaining = remaining - #line - 1
  end
  return #lines - 1, #lines[#lines]
end

--- Apply an `edit_file` replacement to the buffer's own text. False when its old text is not there exactly as
--- the tool requires (once, or any number of times with `replace_all`).
---@param buf integer
---@param input {old_string: string, new_string: string, replace_all: boolean?}
---@return boolean
function M.apply_to_buffer(buf, input)
  if type(input) ~= 'table' or type(input.old_string) ~= 'string' or type(input.new_string) ~= 'string' then
    return false
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local starts = occurrences(table.concat(lines, '\n'), input.old_string)
  if #starts == 0 or (#starts > 1 and not input.replace_all) then
    return false
  end
  local replacement = vim.split(input.new_string, '\n', { plain = true })
  for i = #starts, 1, -1 do -- from the end, so earlier offsets stay valid
    local srow, scol = position(lines, starts[i])
    local erow, ecol = position(lines, starts[i] + #input.old_string)
    vim.api.nvim_buf_set_text(buf, srow, scol, erow, ecol, replacement)
  end
  return true
end

--- After the agent changed `path` on disk with `tool`: reload, merge or warn. Returns what happened
--- ('reloaded', 'merged', 'diverged') or nil when no buffer has the file.
---@param path string absolute
---@param tool string
---@param input table
---@return string?
function M.after_agent_write(path, tool, input)
  local buf = M.buffer_of(path)
  if not buf then
    return nil
  end
  local shown = vim.fn.fnamemodify(path, ':~:.')
  if not vim.bo[buf].modified then
    checktime(buf)
    return 'reloaded'
  end
  if tool == 'edit_file' and M.apply_to_buffer(buf, input) then
    rebase(buf, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
    vim.notify(
      string.format('compact-lsp: the agent edited %s; the edit is in your modified buffer too (not saved yet)', shown),
      vim.log.levels.INFO
    )
    return 'merged'
  end
  -- During the turn: cut to fit the line (whole in :messages), the file and both ways out kept; after the event
  -- that brought it is drawn (echoing a cut message lets Neovim handle the next chat events meanwhile).
  vim.schedule(function()
    require('compact_lsp.words').notify(
      string.format(
        'compact-lsp: the agent rewrote %s on disk; your unsaved changes stay in the buffer: :e! takes the agent’s version, :w! keeps yours',
        shown
      ),
      vim.log.levels.WARN,
      { fit = true }
    )
  end)
  return 'diverged'
end

return M
