--- What the server's errors, refusals and outcomes say, in Neovim's terms: the commands to run, never an
--- exception class or a protocol method. Refusals are mapped by their `data.kind` (docs/protocol.md); any other
--- message is the server's own, with its method names and class names taken out and its figures as the plugin
--- writes them (26.2k). One place, so that every command, the chat and the status float say the same.
local format = require('compact_lsp.format')

local M = {}

M.PREFIX = 'compact-lsp: '

--- The command that makes a managed copy of a followed session (Claude Code's, Codex's, ...) and opens it.
M.IMPORT = ':Compact import'
--- The chat without an API key, in Neovim's terms: where the key goes, and what works without it.
M.NO_KEY = 'no Anthropic API key: the chat needs ANTHROPIC_API_KEY in the environment Neovim starts from (export '
  .. 'it, then start Neovim again); :Compact full works without it (offline summary)'

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
function M.other_window(owner)
  local pid = type(owner) == 'table' and tonumber(owner.pid)
  return pid and string.format('another editor (process %d)', pid) or 'another editor'
end

--- Refusals by `data.kind`: what happened, then what to do here.
---@type table<string, fun(data: table, text: string): string>
local by_kind = {
  read_only = function(data)
    local agent = type(data.owner) == 'table' and data.owner.agent
    if type(agent) == 'string' and agent ~= '' then
      return 'read-only: ' .. agent .. ' owns this session. ' .. M.IMPORT .. ' continues it here'
    end
    return 'read-only: open in ' .. M.other_window(data.owner) .. '. Continue there, or :CompactChat! for a new chat'
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

--- Outcomes said in the plugin's own words by `kind`, with what the user can do next.
---@type table<string, fun(result: table): string>
local outcome_by_kind = {
  not_smaller = function(result)
    local reason = tostring(result.reason or '')
    local after = reason:match('compacted context %((%d+)')
    local before = reason:match('current one %((%d+) tokens%)') or reason:match('get down to (%d+) tokens')
    local figures = (after and before)
        and string.format(' (%s tokens against %s now)', format.tokens(tonumber(after)), format.tokens(tonumber(before)))
      or ''
    return 'not compacted: a summary would not be smaller' .. figures .. '. :Compact micro clears old tool results'
  end,
}

--- An outcome (`changed: false`: nothing to do, cancelled), in the user's words.
---@param result table
---@return string
function M.outcome(result)
  local mapped = outcome_by_kind[result.kind or '']
  if mapped then
    return mapped(result)
  end
  local reason = tostring(result.reason or result.kind or 'nothing changed')
  return (plain(reason):gsub('%.$', ''))
end

--- Echo `msg` on the message line, cut to fit (its first words, paths and commands kept), with the whole of it
--- in `:messages`; no hit-enter prompt. The whole goes into the history first, drawn with 'messagesopt' set not
--- to wait, then the cut version replaces it on screen.
---@param msg string
---@param hl string? the highlight group (a warning's `WarningMsg`)
---@param short string? what the line shows instead when `msg` does not fit (itself cut to fit if need be)
function M.echo_fitted(msg, hl, short)
  local room = math.max(vim.v.echospace, 20)
  local cut = format.fit_words(msg, room)
  if cut ~= msg and short then
    cut = format.fit_words(short, room)
  end
  if cut == msg then
    return vim.api.nvim_echo({ { msg, hl } }, true, {})
  end
  local saved = vim.o.messagesopt
  vim.o.messagesopt = 'wait:0,history:' .. (saved:match('history:(%d+)') or '500')
  vim.api.nvim_echo({ { msg, hl } }, true, {})
  vim.cmd('redraw')
  vim.o.messagesopt = saved
  vim.api.nvim_echo({ { cut, hl } }, false, {})
end

--- Show `msg` once, without a hit-enter prompt for information: with a screen, an informative message that
--- would not fit the message line is cut to fit and kept whole in `:messages` (warnings and errors are shown
--- whole, unless `opts.fit`: a warning that comes while the user is busy elsewhere, such as the agent's write
--- during a turn or the server found missing as Neovim starts, must not stop them with a prompt).
--- `opts.short`: the line to show instead of a cut of `msg`.
---@param msg string
---@param level integer?
---@param opts {fit: boolean?, short: string?}?
function M.notify(msg, level, opts)
  level = level or vim.log.levels.INFO
  opts = opts or {}
  local own = debug.getinfo(vim.notify, 'S').source:find('_editor.lua', 1, true) -- no notification plugin
  local fit = level <= vim.log.levels.INFO or opts.fit
  if fit and #vim.api.nvim_list_uis() > 0 and own and vim.o.messagesopt then
    local hl = level >= vim.log.levels.ERROR and 'ErrorMsg' or level >= vim.log.levels.WARN and 'WarningMsg' or nil
    return M.echo_fitted(msg, hl, opts.short)
  end
  vim.notify(msg, level)
end

return M
