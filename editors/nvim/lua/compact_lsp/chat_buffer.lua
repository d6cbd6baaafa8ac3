--- The chat buffer: a prompt buffer (`> `) bound to its session and named by its title, or a followed session's
--- read-only buffer with its header; what <CR> at the prompt does (creating the session on a new chat's first
--- message); showing it in a window. The buffer has no file (unlisted, never "modified"), so it never stops `:qa`.
--- What it shows is chat_render.lua's; the turns, chat_turn.lua's.
local client = require('compact_lsp.client')
local render = require('compact_lsp.chat_render')
local state = require('compact_lsp.state')
local turn = require('compact_lsp.chat_turn')

local M = {}

M.prompt = '> '

--- Title of a session the chat creates: the `chat.title` option, else the first message.
---@param text string
---@return string
local function title_for(text)
  local fixed = require('compact_lsp.config').options.chat.title
  if fixed then
    return fixed
  end
  local first = vim.trim(text:match('^[^\n]*') or '')
  return vim.fn.strchars(first) > 60 and (vim.fn.strcharpart(first, 0, 59) .. '…') or first
end

--- The chat buffer's name: `compact-lsp://chat/<session title>` (its id while it has no title), unique.
---@param buf integer
---@param session_id string?
---@param title string? the title when the session list does not have it yet (a session just made)
function M.name_buffer(buf, session_id, title)
  title = title or (session_id and require('compact_lsp.sessions').title(session_id))
  local label = (title and title ~= '') and title or session_id or 'new'
  label = vim.fn.strchars(label) > 60 and (vim.fn.strcharpart(label, 0, 59) .. '…') or label
  local name, n = 'compact-lsp://chat/' .. label, 1
  while true do
    local other = vim.fn.bufnr('^' .. vim.fn.escape(name, '\\/.*$^~[]') .. '$')
    if other == -1 or other == buf then
      break
    end
    n = n + 1
    name = string.format('compact-lsp://chat/%s (%d)', label, n)
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
end

--- Bind a chat buffer to its session: name, lookups.
---@param buf integer
---@param session_id string
---@param title string?
local function bind(buf, session_id, title)
  state.chats[session_id] = buf
  vim.b[buf].compact_lsp_session = session_id
  M.name_buffer(buf, session_id, title)
end

--- What a new chat says above its prompt until the first message (virtual: never in the transcript).
M.FIRST_HINT = { 'Ask the agent about this project.', '<CR> sends, ? lists the keys.' }
local hint_ns = vim.api.nvim_create_namespace('compact_lsp.chat.hint')

--- What <CR> at the prompt does: the typed line becomes "You: …", and the turn starts (creating the session
--- first when this chat has none yet).
---@param buf integer
---@param text string
local function submit(buf, text)
  if text:match('^%s*$') then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, hint_ns, 0, -1)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 2, n - 1, false, {})
  render.settle(buf)
  local session_id = vim.b[buf].compact_lsp_session
  if session_id then
    return turn.send(session_id, text)
  end
  render.append_lines(buf, render.you_lines(text))
  local title = title_for(text)
  require('compact_lsp.sessions').create(title, function(err, new_id)
    if err or not new_id then
      render.append_lines(buf, { '  ! ' .. render.server_error(buf, err or 'could not create a session'), '' })
      return
    end
    bind(buf, new_id, title)
    if state.new_chat == buf then
      state.new_chat = nil
    end
    turn.start_echoed(new_id, text)
  end)
end

local markdown = require('compact_lsp.chat_markdown').start

--- The lines at the top of a followed session's chat: whose it is, read-only, and the one action.
---@param owner string the agent that owns it ("Claude Code", "Codex")
---@return string[]
function M.read_only_header(owner)
  return {
    owner .. "'s session: read-only here, " .. owner .. ' owns it.',
    'Import to continue: ' .. require('compact_lsp.words').IMPORT .. ' (your own copy)',
    '',
  }
end

--- The header of a session another editor window writes (its server holds the write lock): who, and the ways on.
---@param who string "another editor (process 4242)"
---@return string[]
function M.elsewhere_header(who)
  return {
    'Open in ' .. who .. ': read-only here, it follows that window\'s work.',
    'Continue there, or :CompactChat! for a new chat',
    '',
  }
end

--- How many lines the read-only header takes (its history starts below them).
M.READ_ONLY_HEADER_LINES = 3

--- The window bar of a followed session's chat: what its header says, in sight however far it scrolls.
---@param owner string
---@return string
function M.read_only_winbar(owner)
  return owner .. "'s, read-only · :Compact import continues it"
end

--- Whose a read-only chat is, in the window bar of `win` (which shows `buf`).
---@param win integer
---@param buf integer
local function read_only_bar(win, buf)
  local elsewhere = vim.b[buf].compact_lsp_elsewhere
  local bar = elsewhere and ('read-only: open in ' .. require('compact_lsp.words').other_window(elsewhere))
    or M.read_only_winbar(vim.b[buf].compact_lsp_owner or 'its agent')
  vim.api.nvim_set_option_value('winbar', '%#CompactLspChatReadOnly#' .. bar, { win = win, scope = 'local' })
end

--- Put the chat `chat` of session `session_id` in place of `old` in the windows `windows` that showed it, then
--- drop `old` and give `chat` its name and history (the cursor at its end, where new activity comes in).
---@param old integer
---@param chat integer
---@param windows integer[]
---@param session_id string
---@param cb fun()?
local function replace(old, chat, windows, session_id, cb)
  for _, win in ipairs(windows) do
    if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == old then
      vim.api.nvim_win_set_buf(win, chat)
      if vim.b[chat].compact_lsp_read_only then
        read_only_bar(win, chat)
      else
        vim.api.nvim_set_option_value('winbar', '', { win = win, scope = 'local' })
      end
    end
  end
  vim.api.nvim_buf_delete(old, { force = true })
  M.name_buffer(chat, session_id) -- the old one's name, free now
  require('compact_lsp.sessions').show_history(session_id, chat, function()
    for _, win in ipairs(vim.fn.win_findbuf(chat)) do
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(chat), 0 })
    end
    if cb then
      cb()
    end
  end)
end

--- A chat of a followed session (an agent's, or one another editor window writes, `elsewhere`): its history, no
--- prompt, no input; it follows the session's new activity (chat.refresh_read_only).
---@param session_id string
---@param elsewhere {pid: integer?, host: string?}?
---@return integer buf
local function create_read_only(session_id, elsewhere)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'compact_chat'
  vim.b[buf].compact_lsp_read_only = true
  bind(buf, session_id)
  local words = require('compact_lsp.words')
  local owner = elsewhere and words.other_window(elsewhere)
    or require('compact_lsp.sessions').owner(session_id) or 'its agent'
  if elsewhere then -- our agent's session: its answers stay "Claude: "
    vim.b[buf].compact_lsp_elsewhere = elsewhere
    -- chosen on the server too, which then loads it and follows the other window's appends (its history alone is
    -- read from disk, followed by nobody: the chat stayed at its first message) and reports its usage at once
    require('compact_lsp.sessions').select(session_id)
  else -- the agent's: its answers are labelled with its name
    vim.b[buf].compact_lsp_owner = owner
  end
  local header = elsewhere and M.elsewhere_header(owner) or M.read_only_header(owner)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, header)
  render.mark_read_only(buf, #header - 1)
  vim.bo[buf].modifiable = false
  markdown(buf)
  local function refuse()
    if elsewhere then
      local sessions = require('compact_lsp.sessions')
      return sessions.refresh(function()
        if sessions.open_elsewhere(session_id) then
          return words.notify(words.error({ message = '', data = { kind = 'read_only', owner = elsewhere } }))
        end
        M.continue_here(buf, session_id, true)
      end)
    end
    local refusal = words.PREFIX .. 'read-only: ' .. owner .. ' owns this session. ' .. words.IMPORT
      .. ' continues it here'
    words.notify(refusal .. ' as your own copy', nil, { short = refusal })
  end
  local desc = elsewhere and 'Read-only: open in another editor' or 'Read-only: :Compact import continues it'
  for _, lhs in ipairs({ 'i', 'a', 'I', 'A', 'o', 'O', '<CR>' }) do
    vim.keymap.set('n', lhs, refuse, { buffer = buf, nowait = true, desc = desc })
  end
  require('compact_lsp.chat_keys').attach(buf, { cancel = function() end, read_only = true })
  return buf
end

--- The other window let the session go: it continues here, in its chat with a prompt and its history, in the
--- windows that showed the read-only one; the cursor stays in the window it was in and Vim in its mode (keys
--- typed meanwhile are never read as a message). A chat shown nowhere just goes: the next :CompactChat opens it
--- with a prompt.
---@param buf integer the session's read-only chat
---@param session_id string
---@param insert boolean? a key typed there asked for it: Insert mode at the prompt
function M.continue_here(buf, session_id, insert)
  local windows = vim.fn.win_findbuf(buf)
  if #windows == 0 then
    return vim.api.nvim_buf_delete(buf, { force = true })
  end
  local sessions = require('compact_lsp.sessions')
  sessions.select(session_id, function()
    if not vim.api.nvim_buf_is_valid(buf) or vim.b[buf].compact_lsp_session ~= session_id then
      return
    end
    state.chats[session_id] = nil
    local chat = M.create(session_id)
    replace(buf, chat, windows, session_id, function()
      if insert and vim.api.nvim_get_current_buf() == chat then
        vim.cmd('startinsert!')
      end
      local words = require('compact_lsp.words')
      words.notify(words.PREFIX .. 'the other window let this session go: it continues here')
    end)
  end)
end

--- Another window took the session whose chat `buf` has a prompt here: the chat turns read-only in place,
--- naming that window, and follows its work (a message sent here would only be refused). Left as it is while
--- something is typed at its prompt or its own turn runs: sending says why, and nothing typed is lost.
---@param buf integer
---@param session_id string
---@param owner {pid: integer?, host: string?}
function M.go_read_only(buf, session_id, owner)
  local line = vim.api.nvim_buf_get_lines(buf, -2, -1, false)[1] or ''
  if state.turns[session_id] or vim.trim(line:sub(#M.prompt + 1)) ~= '' then
    return
  end
  local windows = vim.fn.win_findbuf(buf)
  if vim.tbl_contains(windows, vim.api.nvim_get_current_win()) and vim.fn.mode() == 'i' then
    vim.cmd('stopinsert')
  end
  state.chats[session_id] = nil
  if #windows == 0 then
    return vim.api.nvim_buf_delete(buf, { force = true }) -- the next :CompactChat opens it read-only
  end
  replace(buf, create_read_only(session_id, owner), windows, session_id, function()
    local words = require('compact_lsp.words')
    words.notify(words.PREFIX .. 'read-only here now: ' .. words.other_window(owner)
      .. ' writes this session; this chat follows it')
  end)
end

--- Create a chat buffer (bound to `session_id` when given, else to the session its first message creates) and
--- start the server if none runs (no file needs to be open).
---@param session_id string?
---@return integer buf
function M.create(session_id)
  local sessions = require('compact_lsp.sessions')
  if session_id and (sessions.read_only(session_id) or sessions.open_elsewhere(session_id)) then
    return create_read_only(session_id, sessions.open_elsewhere(session_id))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'prompt'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'compact_chat'
  if session_id then
    bind(buf, session_id)
    -- chosen on the server too, which loads it and watches who writes it: another window that takes it turns
    -- this chat read-only at once (compact/didChangeOpenElsewhere), not at the first message sent here
    sessions.select(session_id)
  else
    pcall(vim.api.nvim_buf_set_name, buf, 'compact-lsp://chat/new')
  end
  vim.fn.prompt_setprompt(buf, M.prompt)
  vim.fn.prompt_setcallback(buf, function(text)
    submit(buf, text)
  end)
  local function interrupt()
    turn.cancel(vim.b[buf].compact_lsp_session)
  end
  vim.fn.prompt_setinterrupt(buf, interrupt)
  require('compact_lsp.chat_keys').attach(buf, { cancel = interrupt, read_only = false })
  -- The prompt shows at once, not only after `i`.
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { M.prompt })
  if not session_id then -- a new chat: what to do, under the prompt a first-time user looks at
    local hint = vim.tbl_map(function(line)
      return { { '  ' .. line, 'CompactLspChatMark' } }
    end, M.FIRST_HINT)
    vim.api.nvim_buf_set_extmark(buf, hint_ns, 0, 0, { virt_lines = hint })
  end
  render.settle(buf)
  markdown(buf)
  local group = vim.api.nvim_create_augroup('compact_lsp.chat.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'TextChanged', 'TextChangedI' }, {
    group = group,
    buffer = buf,
    callback = function()
      render.settle(buf)
    end,
  })
  local _, err = client.ensure()
  if err then
    render.append_lines(buf, { '  ! ' .. render.server_error(buf, err), '' })
  end
  return buf
end

--- Show a chat buffer: focus its window, else open one at the right (wrapped, Markdown concealed). With
--- `insert`, a chat with a prompt is in Insert mode at it, so that the first keys typed are the message, never
--- Normal-mode commands.
---@param buf integer
---@param insert boolean?
function M.show(buf, insert)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    vim.api.nvim_set_current_win(win)
  else
    vim.cmd('botright vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    vim.wo.wrap = true
    vim.wo.linebreak = true
    vim.wo.number = false
    vim.wo.relativenumber = false
    vim.wo.conceallevel = 2
    vim.wo.concealcursor = 'nc'
  end
  if vim.bo[buf].buftype == 'prompt' then
    if insert then
      vim.cmd('startinsert!')
    end
  elseif vim.b[buf].compact_lsp_read_only then
    -- at the end, where the followed session's activity comes in; what it is stays in sight above
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
    read_only_bar(vim.api.nvim_get_current_win(), buf)
  end
end

--- Send `text` from a command (`:CompactChat text`) as if typed at the prompt.
---@param buf integer
---@param text string
function M.submit_text(buf, text)
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n - 1, n, false, { M.prompt .. (text:match('^[^\n]*') or ''), M.prompt })
  submit(buf, text)
end

return M
