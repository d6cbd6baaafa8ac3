--- Is the running server the one this plugin was built for? (docs/protocol.md, "Versions")
local M = {}

--- The protocol version this plugin speaks: `capabilities.experimental.compactLsp.protocolVersion`.
M.PROTOCOL_VERSION = 1

--- One sentence when the server's protocol version differs from PROTOCOL_VERSION, else nil.
---@param result table? the initialize result
---@return string?
function M.mismatch(result)
  local capabilities = result and result.capabilities or {}
  local info = type(capabilities.experimental) == 'table' and capabilities.experimental.compactLsp or nil
  local protocol = type(info) == 'table' and type(info.protocolVersion) == 'number' and info.protocolVersion or nil
  if protocol == M.PROTOCOL_VERSION then
    return nil
  end
  local server_version = result and result.serverInfo and result.serverInfo.version
  local named = 'compact-lsp: the server' .. (server_version and (' (' .. server_version .. ')') or '')
  if protocol == nil or protocol < M.PROTOCOL_VERSION then
    local which = protocol and ('speaks protocol ' .. protocol) or 'predates protocol versions'
    return string.format('%s is older than this plugin: it %s, the plugin expects %d. Rebuild it: %s', named, which,
      M.PROTOCOL_VERSION, require('compact_lsp.config').install_command())
  end
  return string.format('%s is newer than this plugin: it speaks protocol %d, the plugin expects %d. Update the plugin.',
    named, protocol, M.PROTOCOL_VERSION)
end

--- on_init: warn once per server start when the versions differ (the server keeps running).
---@param _ vim.lsp.Client
---@param result table
function M.check(_, result)
  local message = M.mismatch(result)
  if message then
    vim.schedule(function()
      vim.notify(message, vim.log.levels.WARN)
    end)
  end
end

return M
