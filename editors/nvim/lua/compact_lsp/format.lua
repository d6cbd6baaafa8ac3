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

--- "52.1k → 18.3k tokens"; "6.9k → 6.9k tokens (−63)" when both round alike
---@param before integer?
---@param after integer?
---@return string
function M.change(before, after)
  local from, to = M.tokens(before), M.tokens(after)
  local saved = (tonumber(before) or 0) - (tonumber(after) or 0)
  if from ~= to or saved == 0 then
    return string.format('%s → %s tokens', from, to)
  end
  -- both round alike ("6.9k → 6.9k"): what changed, so a compaction that freed little does not read as nothing
  return string.format('%s → %s tokens (%s%d)', from, to, saved > 0 and '−' or '+', math.abs(saved))
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

--- Whether a word of a message is one the user needs (a path, a file name, a command or a key to press).
---@param word string
---@return boolean
local function key_word(word)
  return word:find('/', 1, true) ~= nil
    or word:match('^[:<]') ~= nil
    or word:match('%w%.%a%a+[%p]*$') ~= nil
end

--- `s` cut to `width` display cells by leaving out ordinary words nearest its middle (each gap an '…'): its
--- first words (what happened), paths, file names and commands stay. `fit` when even those do not fit.
---@param s string
---@param width integer
---@return string
function M.fit_words(s, width)
  if vim.fn.strdisplaywidth(s) <= width then
    return s
  end
  local words = vim.split(s, ' ', { plain = true })
  local dropped = {}
  local candidates = {}
  for i, word in ipairs(words) do
    -- a command's subcommand is part of it (`:Compact import`, never `:Compact …`)
    local subcommand = i > 1 and words[i - 1] == ':Compact'
    if i > 3 and not key_word(word) and not subcommand then
      table.insert(candidates, i)
    end
  end
  local middle = (#words + 1) / 2
  table.sort(candidates, function(a, b)
    return math.abs(a - middle) < math.abs(b - middle)
  end)
  local function joined()
    local out, gap = {}, false
    for i, word in ipairs(words) do
      if dropped[i] then
        if not gap then
          table.insert(out, '…')
        end
        gap = true
      else
        table.insert(out, word)
        gap = false
      end
    end
    return table.concat(out, ' ')
  end
  local text = s
  for _, i in ipairs(candidates) do
    dropped[i] = true
    text = joined()
    if vim.fn.strdisplaywidth(text) <= width then
      return text
    end
  end
  return M.fit(text, width)
end

--- A path relative to the current directory, cut in the middle to `width`.
---@param path string?
---@param width integer
---@return string
function M.path_fit(path, width)
  return M.fit(M.path(path), width)
end

return M
