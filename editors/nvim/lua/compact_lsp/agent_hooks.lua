--- `:Compact claude-hook|codex-hook|qwen-hook|gemini-hook [project|user] [uninstall]`: install (or remove) an agent's
--- compaction hook through the server's `compact.install<Agent>Hook` command, answered by the server's message.
local client = require('compact_lsp.client')
local format = require('compact_lsp.format')
local words = require('compact_lsp.words')

local M = {}

--- The agents whose hook `:Compact <subcommand>` installs: the server's command and the agent's name.
---@type table<string, string[]>
M.HOOKS = {
  ['claude-hook'] = { 'compact.installClaudeCodeHook', 'Claude Code' },
  ['codex-hook'] = { 'compact.installCodexHook', 'Codex' },
  ['qwen-hook'] = { 'compact.installQwenCodeHook', 'Qwen Code' },
  ['gemini-hook'] = { 'compact.installGeminiCLIHook', 'Gemini CLI' },
}

M.ARGS = { 'project', 'user', 'uninstall' }

--- Install (or remove) an agent's hook: `[project|user] [uninstall]`, answered by the server's message.
---@param name string the subcommand, for messages
---@param command string the server's command
---@param args string[]
---@param done fun(name: string, err: lsp.ResponseError?, result: any) reports the end of the subcommand
function M.install(name, command, args, done)
  local argument = { scope = 'project' }
  for _, word in ipairs(args) do
    if word == 'project' or word == 'user' then
      argument.scope = word
    elseif word == 'uninstall' then
      argument.uninstall = true
    else
      local message = name .. ': unknown argument ' .. word .. ' (expected: project, user, uninstall)'
      return done(name, { code = -32602, message = message }, nil)
    end
  end
  -- not about a session: no sessionId
  client.request('workspace/executeCommand', { command = command, arguments = { argument } }, function(err, result)
    if not err then
      local backup = result.changed and result.backup ~= vim.NIL and result.backup
      local message = result.message:gsub(vim.pesc(result.path or '\0'), format.path(result.path))
      words.notify(words.PREFIX .. message .. (backup and (' (previous file kept as ' .. format.path(backup) .. ')') or ''))
    end
    done(name, err, result)
  end)
end

return M
