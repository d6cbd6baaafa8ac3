--- Markdown in the chat as CodeCompanion shows it: treesitter's markdown highlighting, with `**`, `*`, backticks
--- and link targets concealed (off the cursor line). Without the parsers the text stays plain.
---
--- The chat parses with its own names for Neovim's two Markdown parsers (`compact_chat_md`, `compact_chat_inline`),
--- so its queries change nothing in the user's Markdown buffers. Its inline query differs from Neovim's in one
--- way: an underscore is never concealed nor read as emphasis. Neovim's markdown_inline parser pairs intraword
--- underscores as emphasis (`use handler_2 … handler_3` became `use handler2 … handler3`, the text between in
--- italics), and code talk is full of snake_case.
local M = {}

local BLOCK, INLINE = 'compact_chat_md', 'compact_chat_inline'

local INLINE_HIGHLIGHTS = [[
(code_span) @markup.raw @nospell
((emphasis) @markup.italic (#lua-match? @markup.italic "^%*"))
((strong_emphasis) @markup.strong (#lua-match? @markup.strong "^%*%*"))
(strikethrough) @markup.strikethrough
[(backslash_escape) (hard_line_break)] @string.escape
((code_span_delimiter) @conceal (#set! conceal ""))
((emphasis_delimiter) @conceal (#eq? @conceal "*") (#set! conceal ""))
(inline_link ["[" "]" "(" (link_destination) ")"] @markup.link (#set! conceal ""))
[(link_label) (link_text) (link_title) (image_description)] @markup.link.label
]]

---@type boolean?
local ready

--- A query file's text (all of them, as Neovim would join them), or nil.
---@param lang string
---@param name string
---@return string?
local function query_text(lang, name)
  local parts = {}
  for _, file in ipairs(vim.treesitter.query.get_files(lang, name)) do
    local f = io.open(file, 'r')
    if f then
      parts[#parts + 1] = f:read('*a')
      f:close()
    end
  end
  return #parts > 0 and table.concat(parts, '\n') or nil
end

--- Register the chat's two languages once; false when Neovim lacks the Markdown parsers or their queries.
---@return boolean
local function languages()
  if ready ~= nil then
    return ready
  end
  ready = pcall(function()
    local block = assert(vim.api.nvim_get_runtime_file('parser/markdown.so', false)[1])
    local inline = assert(vim.api.nvim_get_runtime_file('parser/markdown_inline.so', false)[1])
    vim.treesitter.language.add(BLOCK, { path = block, symbol_name = 'markdown' })
    vim.treesitter.language.add(INLINE, { path = inline, symbol_name = 'markdown_inline' })
    vim.treesitter.query.set(BLOCK, 'highlights', assert(query_text('markdown', 'highlights')))
    local injections = assert(query_text('markdown', 'injections')):gsub('"markdown_inline"', '"' .. INLINE .. '"')
    vim.treesitter.query.set(BLOCK, 'injections', injections)
    vim.treesitter.query.set(INLINE, 'highlights', INLINE_HIGHLIGHTS)
  end)
  return ready
end

--- Start the chat's Markdown highlighting in `buf` (plain text when it cannot).
---@param buf integer
function M.start(buf)
  if languages() then
    pcall(vim.treesitter.start, buf, BLOCK)
  end
end

return M
