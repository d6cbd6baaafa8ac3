--- What the server's errors, refusals and outcomes say, in Neovim's terms: the commands to run, never an
--- exception class or a protocol method. Refusals are mapped by their `data.kind` (docs/protocol.md); any other
--- message is the server's own, with its method names and class names taken out and its figures as the plugin
--- writes them (26.2k). One place, so that every command, the chat and the status float say the same.
local format = require('compact_lsp.format')

local M = {}

M.PREFIX = 'compact-lsp: '

--- The command that makes a managed copy of a followed Claude Code session and opens it.
M.IMPORT = ':Compact import'

--- Token figures in a server's sentence as everywhere else: "26206 → 20116 tokens" → "26.2k → 20.1k tokens".
---@param text string
---@return string
function M.figures(text)
  text = text:gsub('(%d+) → (%d+) tokens', function(before, after)
    return format.change(tonumber(before), tonumber(after))
  end)
  return (text:gsub('(%d+) tokens', function(n)
    return format.tokens(tonumber(n)) .. ' tokens'
  end))
end

--- '' for a Python exception class name ("SessionBusy", "StoreError"), else the word and its colon as they were.
---@param name string
---@return string
local function strip_class(name)
  local class = name:match('Error$') or name:match('Exception$') or name:match('Busy$') or name:match('Refused$')
    or name == 'OwnedByClaudeCode'
  return class and '' or (name .. ': ')
end

--- The server's sentence without protocol method names or exception classes.
---@param text string
---@return string
local function plain(text)
  text = text:gsub('^compact%-lsp: ', '')
  text = text:gsub('^compact/%a+: ', '')
  text = text:gsub('^(%u%w+): ', strip_class)
  text = text:gsub('failed unexpectedly: (%u%w+): ', function(name)
    return 'failed unexpectedly: ' .. strip_class(name)
  end)
  text = text:gsub('%s*%(compact[/.]%a+%)', '')
  text = text:gsub('%(see the server log%)', '(:checkhealth vim.lsp shows where its log is)')
  return M.figures(text)
end

---@param owner table?
---@return string
local function other_window(owner)
  local pid = type(owner) == 'table' and tonumber(owner.pid)
  return pid and string.format('another editor (process %d)', pid) or 'another editor'
end

--- Refusals by `data.kind`: what happened, then what to do here.
---@type table<string, fun(data: table, text: string): string>
local by_kind = {
  read_only = function(data)
    if type(data.owner) == 'table' and data.owner.agent == 'Claude Code' then
      return "read-only: Claude Code owns this session. " .. M.IMPORT .. ' continues it here'
    end
    return 'read-only: open in ' .. other_window(data.owner) .. '. Continue there, or :CompactChat! for a new chat'
  end,
  busy = function()
    return 'the agent is still answering: wait, or <C-c> in the chat cancels it'
  end,
  in_progress = function()
    return 'a compaction is already running: :Compact cancel stops it'
  end,
}

--- One line for an error (a JSON-RPC error, or a message of the plugin's own), prefixed once.
---@param err lsp.ResponseError|string|table
---@return string
function M.error(err)
  if type(err) ~= 'table' then
    return M.PREFIX .. plain(tostring(err))
  end
  local text = tostring(err.message or '')
  local data = type(err.data) == 'table' and err.data or {}
  local mapped = by_kind[data.kind]
  if mapped then
    return M.PREFIX .. mapped(data, text)
  end
  return M.PREFIX .. plain(text ~= '' and text or vim.inspect(err))
end

--- The error of `err` without the prefix (for the chat, which has its own marks).
---@param err lsp.ResponseError|string|table
---@return string
function M.bare(err)
  return (M.error(err):sub(#M.PREFIX + 1))
end

--- An outcome (`changed: false`: nothing to do, cancelled), in the user's words.
---@param result table
---@return string
function M.outcome(result)
  local reason = tostring(result.reason or result.kind or 'nothing changed')
  return (plain(reason):gsub('%.$', ''))
end

--- Show `msg` once, without a hit-enter prompt for information: with a screen, an informative message that
--- would not fit the message line is cut in the middle (warnings and errors are shown whole).
---@param msg string
---@param level integer?
function M.notify(msg, level)
  level = level or vim.log.levels.INFO
  if level <= vim.log.levels.INFO and #vim.api.nvim_list_uis() > 0 then
    local room = math.max(vim.v.echospace, 20)
    msg = format.fit(msg, room)
  end
  vim.notify(msg, level)
end

return M
