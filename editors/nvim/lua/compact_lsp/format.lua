--- Small text formatters shared by the status line, the floats and the messages.
local M = {}

--- 950 -> "950", 48211 -> "48.2k", 200000 -> "200k", 1234567 -> "1.2M".
---@param n integer?
---@return string
function M.tokens(n)
  n = tonumber(n) or 0
  local function trim(value, suffix)
    local s = string.format('%.1f', value):gsub('%.0$', '')
    return s .. suffix
  end
  if n >= 999950 then
    return trim(n / 1e6, 'M')
  elseif n >= 1000 then
    return trim(n / 1000, 'k')
  end
  return tostring(math.floor(n))
end

--- Percent with at most one decimal: 24.1, 80, 0.5.
---@param p number?
---@return string
function M.percent(p)
  return (string.format('%.1f', tonumber(p) or 0):gsub('%.0$', ''))
end

--- "52.1k → 18.3k tokens"
---@param before integer?
---@param after integer?
---@return string
function M.change(before, after)
  return string.format('%s → %s tokens', M.tokens(before), M.tokens(after))
end

--- "48.2k/200k tokens (24%)": a usage's total, window and percent, as everywhere in the plugin.
---@param usage compact_lsp.Usage
---@return string
function M.usage(usage)
  return string.format(
    '%s/%s tokens (%s%%)',
    M.tokens(usage.total),
    M.tokens(usage.contextWindow),
    M.percent(usage.percent)
  )
end

--- A path relative to the current directory when inside it.
---@param path string?
---@return string
function M.path(path)
  if not path or path == '' then
    return ''
  end
  return vim.fn.fnamemodify(path, ':~:.')
end

--- `s` cut to `width` display cells, the middle replaced by '…' (ends of paths say the most).
---@param s string
---@param width integer
---@return string
function M.fit(s, width)
  if vim.fn.strdisplaywidth(s) <= width then
    return s
  end
  local head = math.floor((width - 1) / 3)
  local tail = width - 1 - head
  local n = vim.fn.strchars(s)
  return vim.fn.strcharpart(s, 0, head) .. '…' .. vim.fn.strcharpart(s, n - tail, tail)
end

--- A path relative to the current directory, cut in the middle to `width`.
---@param path string?
---@param width integer
---@return string
function M.path_fit(path, width)
  return M.fit(M.path(path), width)
end

return M
