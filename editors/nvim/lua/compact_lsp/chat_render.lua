--- What the chat buffer shows: transcript lines above the `> ` prompt, streamed answers, one line per tool call,
--- end-of-turn marks and compaction markers. Only text; chat_buffer.lua owns the buffer, chat_turn.lua the turns.
local format = require('compact_lsp.format')

local M = {}

local ns = vim.api.nvim_create_namespace('compact_lsp.chat')

--- Label of the user's and the agent's lines.
M.you = 'You: '
M.claude = 'Claude: '

--- The label of the agent's lines: the owner's of a followed session ("Codex: "), else ours.
---@param owner string?
---@return string
function M.agent_label(owner)
  return owner and (owner .. ': ') or M.claude
end

--- Your message as chat lines: "You: " before its first line.
---@param text string
---@return string[]
function M.you_lines(text)
  local lines = vim.split(text, '\n', { plain = true })
  lines[1] = M.you .. lines[1]
  return lines
end

--- Longest description of a tool call or result before it is cut.
local DESCRIBE_WIDTH = 70

--- `s` cut to `width` characters, with an ellipsis when cut.
---@param s string
---@param width integer?
---@return string
local function cut(s, width)
  width = width or DESCRIBE_WIDTH
  if vim.fn.strchars(s) <= width then
    return s
  end
  return vim.fn.strcharpart(s, 0, width - 1) .. '…'
end

--- `s` as a Markdown code span: shown as it is (`h11/__init__.py` keeps its underscores, `[done]` its brackets)
--- by the chat's Markdown rendering, which conceals only the backticks around it. The fence is longer than any run
--- of backticks in `s`.
---@param s string
---@return string
function M.literal(s)
  if s == '' then
    return ''
  end
  local longest = 0
  for run in s:gmatch('`+') do
    longest = math.max(longest, #run)
  end
  local fence = string.rep('`', longest + 1)
  local pad = (s:sub(1, 1) == '`' or s:sub(-1) == '`') and ' ' or ''
  return fence .. pad .. s .. pad .. fence
end

--- The chat buffer is never "modified": it has no file, so `:qa` must not stop on it (E37/E162).
---@param buf integer
function M.settle(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.bo[buf].modified = false
  end
end

--- Highlight the labels of the lines just inserted.
---@param buf integer
---@param first integer 0-based line of the first inserted line
---@param lines string[]
local function highlight(buf, first, lines)
  local agent = M.agent_label(vim.b[buf].compact_lsp_owner)
  for i, line in ipairs(lines) do
    local group = vim.startswith(line, M.you) and 'CompactLspChatUser'
      or vim.startswith(line, agent) and 'CompactLspChatAgent'
      or line:match('^  [⚙↳✗]') and 'CompactLspChatTool'
      or line:match('^  [!]') and 'CompactLspChatError'
      or line:match('^%s*[─%[`]') and 'CompactLspChatMark'
      or nil
    if group then
      local width = (group == 'CompactLspChatUser' and #M.you) or (group == 'CompactLspChatAgent' and #agent) or #line
      pcall(vim.api.nvim_buf_set_extmark, buf, ns, first + i - 1, 0, { end_col = width, hl_group = group })
    end
  end
end

--- Insert transcript lines above the prompt line (at the end of a read-only chat, which has no prompt).
---@param buf integer
---@param lines string[]
function M.append_lines(buf, lines)
  local n = vim.api.nvim_buf_line_count(buf)
  if vim.b[buf].compact_lsp_read_only then
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, n, n, false, lines)
    vim.bo[buf].modifiable = false
    highlight(buf, n, lines)
    M.follow(buf, n)
    return
  end
  vim.api.nvim_buf_set_lines(buf, n - 1, n - 1, false, lines)
  highlight(buf, n - 1, lines)
  M.settle(buf)
  M.follow(buf, n)
end

--- The chat's words for a server that cannot run (missing, stops as it starts): its error the first time this chat
--- meets it (as it opens), then, for each message that could not go, a short line that points up to it instead of
--- the same lines again.
---@param buf integer
---@param err string|table
---@return string
function M.server_error(buf, err)
  local message = require('compact_lsp.words').bare(err)
  if vim.b[buf].compact_lsp_server_error == message then
    return 'not sent: see the error above'
  end
  vim.b[buf].compact_lsp_server_error = message
  return message
end

--- Highlight the read-only header (its first `count` lines).
---@param buf integer
---@param count integer
function M.mark_read_only(buf, count)
  for i = 0, count - 1 do
    pcall(vim.api.nvim_buf_set_extmark, buf, ns, i, 0, { line_hl_group = 'CompactLspChatReadOnly' })
  end
end

--- Keep the newest in view: windows whose cursor was on the last line (the prompt, `prompt_line`) follow it down.
---@param buf integer
---@param prompt_line integer 1-based line of the prompt before the insert
function M.follow(buf, prompt_line)
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local cursor = vim.api.nvim_win_get_cursor(win)
    if cursor[1] >= prompt_line then
      pcall(vim.api.nvim_win_set_cursor, win, { last, cursor[2] })
    end
  end
end

--- Continue the streamed answer: the first piece extends the last transcript line when the answer is still
--- open, else it starts a new labelled line; the rest are new lines.
---@param buf integer
---@param turn compact_lsp.ChatTurn?
---@param text string
function M.append_text(buf, turn, text)
  local pieces = vim.split(text, '\n', { plain = true })
  local n = vim.api.nvim_buf_line_count(buf)
  if turn and turn.open_text and n >= 2 then
    local last = vim.api.nvim_buf_get_lines(buf, n - 2, n - 1, false)[1] or ''
    vim.api.nvim_buf_set_lines(buf, n - 2, n - 1, false, { last .. pieces[1] })
    table.remove(pieces, 1)
  else
    pieces[1] = M.claude .. pieces[1]
  end
  if #pieces > 0 then
    M.append_lines(buf, pieces)
  end
  M.settle(buf)
  if turn then
    turn.open_text = true
  end
end

--- A short description of a tool call: its command, path or pattern.
---@param name string?
---@param input any
---@return string
function M.describe_call(name, input)
  local args = ''
  if type(input) == 'table' then
    for _, key in ipairs({ 'command', 'file_path', 'path', 'pattern', 'query', 'name', 'topic' }) do
      if type(input[key]) == 'string' then
        local value = key:match('path') and format.path(input[key]) or input[key]
        args = cut((value:gsub('\n.*', ' …')))
        break
      end
    end
  end
  if name == 'run_shell_command' then
    -- the prompt sign inside the code span: a bare `$` opens Markdown's LaTeX up to the next one, where no code
    -- span is concealed
    return '  ⚙ ' .. M.literal('$ ' .. args)
  end
  return string.format('  ⚙ %s %s', name or 'tool', M.literal(args))
end

--- A tool result's text (string or blocks), first line only, cut.
---@param content any
---@return string
function M.describe_result(content)
  local text = content or ''
  if type(text) == 'table' then
    text = vim.iter(text)
      :map(function(block)
        return type(block) == 'table' and block.text or nil
      end)
      :join(' ')
  end
  return cut(tostring(text):match('^%s*([^\n]*)') or '')
end

--- One `compact/chatEvent` that is not answer text.
---@param ev compact_lsp.ChatEventParams|table
---@return string[]
function M.event_lines(ev)
  if ev.kind == 'tool_use' then
    return { M.describe_call(ev.name, ev.input) }
  elseif ev.kind == 'tool_result' then
    local failed = ev.isError or ev.is_error
    return { string.format('  %s %s', failed and '✗' or '↳', M.literal(M.describe_result(ev.summary or ev.content or ev.text))) }
  elseif ev.kind == 'status' then
    return { '  · ' .. require('compact_lsp.words').figures(tostring(ev.message or ev.text or '')) }
  elseif ev.kind == 'error' then
    local words = require('compact_lsp.words')
    local text = tostring(ev.message or ev.text or 'error')
    if ev.errorKind == 'auth' and text:match('^No Anthropic API key') then -- the server's words name no editor
      return { '  ! ' .. words.NO_KEY }
    end
    return { '  ! ' .. words.bare(text) }
  end
  return {}
end

--- Why a turn stopped, in the user's words (nil: it simply finished).
local stop_words = {
  max_tokens = 'the answer reached agent.maxTokens',
  max_rounds = 'stopped after agent.maxRounds model calls',
  refusal = 'the model declined',
  pause_turn = 'paused',
  error = 'failed',
  cancelled = 'cancelled',
}

--- The mark that closes a turn: "[done · 12.3k/200k tokens in context]", "[cancelled]" (a code span, so that
--- Markdown keeps its brackets).
---@param stop_reason string?
---@param usage compact_lsp.Usage?
---@return string
function M.turn_end(stop_reason, usage)
  local parts = { stop_words[stop_reason or ''] or 'done' }
  if type(usage) == 'table' and usage.total then
    table.insert(parts, format.usage(usage) .. ' in context')
  end
  return '  ' .. M.literal('[' .. table.concat(parts, ' · ') .. ']')
end

--- Claude Code's records of what the user did in its terminal (slash commands, `!` shell commands), as they come
--- in an imported session: one short line each instead of their markup; the caveat that precedes them, nothing.
---@param text string
---@return string[]? lines nil when the text is no such record
local function terminal_record(text)
  if text:match('^Caveat: The messages below were generated by the user while running local commands') then
    return {}
  end
  -- "<command-message>init is analyzing…</command-message>" comes before the command's name: not shown
  text = text:gsub('^%s*<command%-message>.-</command%-message>%s*', '')
  local command = text:match('^%s*<command%-name>(.-)</command%-name>')
  if command then
    local args = text:match('<command%-args>(.-)</command%-args>') or ''
    return { '  · ' .. M.literal(vim.trim(command .. ' ' .. args)) }
  end
  local bash = text:match('^%s*<bash%-input>(.-)</bash%-input>')
  if bash then
    return { '  ⚙ ' .. M.literal('$ ' .. cut((bash:gsub('\n.*', ' …')))) }
  end
  for _, tag in ipairs({ 'local%-command%-stdout', 'bash%-stdout', 'bash%-stderr', 'local%-command%-stderr' }) do
    local output = text:match('^%s*<' .. tag .. '>(.-)</' .. tag .. '>')
    if output then
      local first = output:match('^%s*([^\n]*)') or ''
      return first ~= '' and { '  ↳ ' .. M.literal(cut(first)) } or {}
    end
  end
  return nil
end

--- Lines of a past message (from compact/transcript): text labelled, tool calls and results one line each.
---@param message {role: string, content: string|table[]}
---@param owner string? the agent whose session it is (a followed one), for its lines' label
---@return string[]
function M.message_lines(message, owner)
  local label = message.role == 'user' and M.you or M.agent_label(owner)
  local content = message.content
  if type(content) == 'string' then
    content = { { type = 'text', text = content } }
  end
  local lines = {}
  for _, block in ipairs(type(content) == 'table' and content or {}) do
    if block.type == 'text' and type(block.text) == 'string' and block.text ~= '' then
      local record = message.role == 'user' and terminal_record(block.text)
      if record then
        vim.list_extend(lines, record)
      else
        local text = vim.split(block.text, '\n', { plain = true })
        text[1] = label .. text[1]
        vim.list_extend(lines, text)
      end
    elseif block.type == 'tool_use' and block.name == 'SlashCommand' and type(block.input) == 'table'
      and type(block.input.command) == 'string' then
      -- a slash command the user typed in the agent's terminal (Claude Code's /compact), as Qwen's /compress
      table.insert(lines, M.you .. block.input.command)
    elseif block.type == 'tool_use' then
      table.insert(lines, M.describe_call(block.name, block.input))
    elseif block.type == 'tool_result' then
      local mark = block.is_error and '✗' or '↳'
      table.insert(lines, string.format('  %s %s', mark, M.literal(M.describe_result(block.content))))
    end
  end
  return lines
end

--- A marker for a compaction or microcompaction entry of the transcript.
---@param entry table
---@return string
function M.compaction_mark(entry)
  local change = (entry.tokensBefore and entry.tokensAfter) and (': ' .. format.change(entry.tokensBefore, entry.tokensAfter))
    or ''
  if entry.kind == 'microcompaction' then
    local cleared = type(entry.cleared) == 'table' and #entry.cleared or entry.clearedCount
    local what = cleared and string.format('cleared %d old tool result%s', cleared, cleared == 1 and '' or 's')
      or 'cleared old tool results'
    return '  ── ' .. what .. change .. ' ──'
  end
  if entry.kind == 'undo' then
    return '  ── the compaction before this was undone ──'
  end
  if entry.summarizer == 'agent' then
    -- the agent's own compaction: its trigger and figures when its transcript recorded them (a followed session, or
    -- an imported copy's last one); unrecorded ones are null, and none are made up
    if (tonumber(entry.tokensBefore) or 0) <= 0 or (tonumber(entry.tokensAfter) or 0) <= 0 then
      return '  ── conversation compacted by the agent (its own summary) ──'
    end
    -- a typed /compact or /compress: Gemini CLI records no row of the command, so the marker says it
    local how = entry.trigger == 'auto' and ' automatically' or entry.trigger == 'manual' and ' when asked' or ''
    return '  ── conversation compacted by the agent' .. how .. change .. ' (its own summary) ──'
  end
  local how = entry.fallback and ' (offline summary: the API failed)'
    or entry.summarizer and (' (' .. entry.summarizer .. ' summary)')
    or ''
  return '  ── conversation compacted' .. change .. how .. ' ──'
end

--- A chat shows at most this many entries of a session's history (the newest); a line says how many are not shown.
M.HISTORY_ENTRIES = 400

--- All the lines of a transcript (compact/transcript entries), the newest `HISTORY_ENTRIES` of them.
---@param entries table[]
---@param owner string? the agent whose session it is (a followed one)
---@return string[]
function M.history_lines(entries, owner)
  local lines = {}
  entries = entries or {}
  local first = math.max(1, #entries - M.HISTORY_ENTRIES + 1)
  if first > 1 then
    table.insert(lines, string.format('  … %d earlier entries not shown', first - 1))
  end
  for i = first, #entries do
    local entry = entries[i]
    if entry.kind == 'message' and type(entry.message) == 'table' then
      vim.list_extend(lines, M.message_lines(entry.message, owner))
    elseif entry.kind == 'message' and entry.role then
      vim.list_extend(lines, M.message_lines(entry, owner))
    elseif entry.kind == 'compaction' or entry.kind == 'microcompaction' or entry.kind == 'undo' then
      table.insert(lines, M.compaction_mark(entry))
    end
  end
  return lines
end

return M
