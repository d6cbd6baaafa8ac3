--- The warning before an agent compacts by itself (`usage.nextCompaction`, docs/protocol.md): the gauge's line
--- ("~949k tokens / ~53 turns to Claude Code's automatic compaction") and one warning when it is near, with what the
--- user can do; a setting that silently turns the agent's automatic compaction off is named once. Our own sessions
--- (no agent owns them) get the same about compact-lsp's automatic compaction, but their "off" (the user's own
--- setting) only in :Compact status.
local format = require('compact_lsp.format')
local state = require('compact_lsp.state')

local M = {}

--- The agent's name for a followed session ("Claude Code"), as the sessions list says; nil for our own.
---@param session_id string
---@return string?
local function agent(session_id)
  return require('compact_lsp.sessions').owner(session_id)
end

---@param value any
---@return any
local function given(value)
  return value ~= vim.NIL and value or nil
end

--- "~949k tokens / ~53 turns", or nil with nothing to say.
---@param next_one table
---@return string?
local function distance(next_one)
  local left = next_one.tokensLeft ~= vim.NIL and next_one.tokensLeft or nil
  if not left then
    return nil
  end
  local turns = next_one.turnsLeft ~= vim.NIL and next_one.turnsLeft or nil
  local text = '~' .. format.tokens(left) .. ' tokens'
  if turns then
    text = text .. string.format(' / ~%d turn%s', turns, turns == 1 and '' or 's')
  end
  return text
end

--- The gauge's line for a usage, or nil when the server did not say (not an agent's session we can tell).
---@param session_id string
---@param usage compact_lsp.Usage
---@return string?
function M.line(session_id, usage)
  local next_one = usage.nextCompaction
  if type(next_one) ~= 'table' then
    return nil
  end
  local owner = agent(session_id)
  local who = owner or 'compact-lsp'
  local off = next_one.disabledBy ~= vim.NIL and next_one.disabledBy or nil
  if off then
    return string.format('%s will not compact %sby itself: %s turns it off', who, owner and '' or 'this session ', off)
  end
  local how_far = distance(next_one)
  if not how_far then
    return nil
  end
  return string.format('%s to %s\'s automatic compaction at %s', how_far, who, format.tokens(next_one.thresholdTokens))
end

--- The gauge's lines in `:Compact status` (how far, and where the threshold comes from), if the server said.
---@param doc compact_lsp.Doc
---@param session_id string
---@param usage compact_lsp.Usage
function M.add_lines(doc, session_id, usage)
  local text = M.line(session_id, usage)
  if not text then
    return
  end
  local next_one = usage.nextCompaction
  local near = next_one.near or given(next_one.disabledBy) ~= nil
  doc:add({ { text, near and 'CompactLspWarning' or 'Comment' } })
  doc:add({ { '  (' .. next_one.origin .. ')', 'Comment' } })
end

--- The warning's text: how far, and what the user can do; and its short form for the message line (whole in
--- :messages): what happens and when stay, what to do is named without its details.
---@param session_id string
---@param next_one table
---@return string, string
function M.warning(session_id, next_one)
  local who = agent(session_id)
  local left = given(next_one.tokensLeft)
  local when = (left and left > 0) and ('in ' .. distance(next_one))
    or ('at its next step (' .. format.tokens(next_one.thresholdTokens) .. ' reached)')
  if not who then
    return string.format('this session compacts by itself %s: :Compact full with a focus, :Compact pin what must '
      .. 'survive, or let it run (%s).', when, next_one.origin),
      string.format('this session compacts by itself %s: :Compact full or :Compact pin.', when)
  end
  return string.format('%s compacts by itself %s: /compact with a focus in %s, :Compact pin what must survive, '
    .. 'or let it run. %s.', who, when, who, next_one.origin),
    string.format('%s compacts by itself %s: /compact or :Compact pin.', who, when)
end

--- Warn once when a session's next automatic compaction is near, and once when it is turned off; again only after
--- it moved away (a compaction happened) and came near again. Called with each usage the server sends.
---@param session_id string
---@param usage compact_lsp.Usage
function M.check(session_id, usage)
  local next_one = type(usage) == 'table' and usage.nextCompaction or nil
  if type(next_one) ~= 'table' then
    return
  end
  local off = next_one.disabledBy ~= vim.NIL and next_one.disabledBy or nil
  -- "off" is news about an agent (an environment variable, a limit past its window, set where nobody sees it); our
  -- own sessions' is the user's own setting, named in :Compact status: as a warning on every session it covered
  -- the answer of the command that had just run (":Compact micro" cleared …) and said what the user had chosen
  local now = (off and agent(session_id) and 'off') or (not off and next_one.near and 'near') or nil
  if now == state.warned_next[session_id] then
    return
  end
  state.warned_next[session_id] = now
  local msg, short
  if now == 'near' then
    msg, short = M.warning(session_id, next_one)
  elseif now == 'off' then
    msg = M.line(session_id, usage) .. ': the session will run into the end of its window.'
  else
    return
  end
  msg, short = 'compact-lsp: ' .. msg, short and ('compact-lsp: ' .. short)
  if #vim.api.nvim_list_uis() > 0 and vim.o.messagesopt then -- cut to fit, whole in :messages, no hit-enter prompt
    require('compact_lsp.words').echo_fitted(msg, 'WarningMsg', short)
  else
    vim.notify(msg, vim.log.levels.WARN)
  end
end

return M
