--- Handlers for the server's notifications and requests (wired in lsp/compact_lsp.lua).
--- Each one records what it learned in `compact_lsp.state` and fires a `User` autocmd that scripts,
--- status-line plugins and the tests can wait on.
local state = require('compact_lsp.state')
local format = require('compact_lsp.format')

local M = {}

--- Fire `User <pattern>` with `data`, without running modelines.
---@param pattern string
---@param data table
function M.emit(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- `compact/didChangeUsage` {sessionId, usage}
---@param result {sessionId: string, usage: compact_lsp.Usage}
---@param ctx lsp.HandlerContext
function M.did_change_usage(_, result, ctx)
  if type(result) ~= 'table' or not result.sessionId then
    return
  end
  state.usage[result.sessionId] = result.usage
  -- The status line's fallback before the current session is known; a followed Claude Code session never
  -- becomes it by itself (the current session is the user's).
  if not require('compact_lsp.sessions').read_only(result.sessionId) then
    state.last_session = result.sessionId
  end
  vim.cmd.redrawstatus({ bang = true })
  require('compact_lsp.next_compaction').check(result.sessionId, result.usage)
  if package.loaded['compact_lsp.chat'] then
    require('compact_lsp.chat').refresh_read_only(result.sessionId)
  end
  M.emit('CompactLspUsage', { client_id = ctx.client_id, session_id = result.sessionId, usage = result.usage })
end

--- Triggers the user did not ask for; manual ones are reported by the command itself.
local unrequested = { auto = true, idle = true, size = true }

--- `compact/didCompact` {sessionId, kind, trigger, tokensBefore, tokensAfter}
---@param result compact_lsp.DidCompactParams
---@param ctx lsp.HandlerContext
function M.did_compact(_, result, ctx)
  if type(result) ~= 'table' then
    return
  end
  if unrequested[result.trigger] and require('compact_lsp.config').options.notify_auto then
    local what = result.kind == 'micro' and 'cleared old tool results' or 'compacted the conversation'
    local fallback = result.fallback == true
        and (' (offline summary: the API failed' .. (type(result.fallbackReason) == 'string' and (': ' .. result.fallbackReason) or '') .. ')')
      or ''
    vim.notify(
      string.format(
        'compact-lsp: %s (%s): %s%s',
        what,
        result.trigger,
        format.change(result.tokensBefore, result.tokensAfter),
        fallback
      ),
      fallback ~= '' and vim.log.levels.WARN or vim.log.levels.INFO
    )
  end
  require('compact_lsp.chat_turn').on_compacted(result)
  M.emit('CompactLspCompacted', vim.tbl_extend('force', { client_id = ctx.client_id }, result))
end

--- `compact/chatEvent` {sessionId, kind, ...}: rendered by the chat buffer of that session.
---@param result compact_lsp.ChatEventParams
function M.chat_event(_, result)
  if type(result) ~= 'table' then
    return
  end
  require('compact_lsp.chat_turn').on_event(result)
  M.emit('CompactLspChatEvent', result)
end

--- `compact/didChangeOpenElsewhere` {sessionId, openElsewhere?}: another editor window took the session or let it
--- go. The session list learns it (the next :CompactChat opens it accordingly), and its chat here follows at once,
--- in the windows that show it: a read-only one continues here (chat_buffer.continue_here), one with a prompt
--- turns read-only naming that window (chat_buffer.go_read_only).
---@param result compact_lsp.DidChangeOpenElsewhereParams
---@param ctx lsp.HandlerContext
function M.did_change_open_elsewhere(_, result, ctx)
  if type(result) ~= 'table' or type(result.sessionId) ~= 'string' then
    return
  end
  local owner = type(result.openElsewhere) == 'table' and result.openElsewhere or nil
  require('compact_lsp.sessions').set_open_elsewhere(result.sessionId, owner)
  local buf = state.chat_buffer(result.sessionId)
  if not owner and buf and vim.b[buf].compact_lsp_elsewhere then
    require('compact_lsp.chat_buffer').continue_here(buf, result.sessionId)
  elseif owner and buf and not vim.b[buf].compact_lsp_read_only then
    require('compact_lsp.chat_buffer').go_read_only(buf, result.sessionId, owner)
  end
  M.emit('CompactLspOpenElsewhere', { client_id = ctx.client_id, session_id = result.sessionId, owner = owner })
end

--- `window/showMessageRequest` (the agent's permission prompts): see compact_lsp.permission.
---@param err lsp.ResponseError?
---@param params lsp.ShowMessageRequestParams
---@param ctx lsp.HandlerContext
---@return lsp.MessageActionItem|vim.NIL
function M.show_message_request(err, params, ctx)
  return require('compact_lsp.permission').ask(err, params, ctx)
end

return M
