--- The status-line component: "48.2k/200k 24%", highlighted near the auto-compact threshold.
local state = require('compact_lsp.state')
local format = require('compact_lsp.format')

local M = {}

---@class compact_lsp.StatuslineOpts
---@field highlight boolean? wrap the text in %#CompactLspWarning# / %#CompactLspCritical# (default true)
---@field prefix string? text before the figures (default: the `statusline.prefix` option)
---@field session string? session to show (default: a chat window's own session, else the current one)

--- Highlight group per usage level.
M.highlights = {
  warning = 'CompactLspWarning',
  critical = 'CompactLspCritical',
}

--- The component as a status-line string ('%' escaped); empty until the server has reported usage.
---@param opts compact_lsp.StatuslineOpts?
---@return string
function M.render(opts)
  opts = opts or {}
  -- Drawn for a chat window: that chat's session, not the current one ('statusline' is evaluated per window).
  local win = vim.g.statusline_winid
  local buf = (win and vim.api.nvim_win_is_valid(win)) and vim.api.nvim_win_get_buf(win) or vim.api.nvim_get_current_buf()
  local session = opts.session or vim.b[buf].compact_lsp_session or state.current_session()
  local usage = session and state.usage[session]
  if not usage then
    return ''
  end
  local prefix = opts.prefix or require('compact_lsp.config').options.statusline.prefix
  local text = string.format(
    '%s%s/%s %s%%%%',
    prefix,
    format.tokens(usage.total),
    format.tokens(usage.contextWindow),
    format.percent(usage.percent)
  )
  local group = M.highlights[usage.level]
  if group and opts.highlight ~= false then
    return '%#' .. group .. '#' .. text .. '%*'
  end
  return text
end

return M
