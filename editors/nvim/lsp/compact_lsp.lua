-- compact-lsp: the context-window manager for an in-editor AI agent.
-- Enable with `vim.lsp.enable('compact_lsp')`, or `require('compact_lsp').setup(opts)` to set options too.

--- Markers that identify the workspace root, in order of preference.
local root_markers = { '.compact', '.git' }

--- Handlers are looked up lazily so that enabling the config does not load the plugin's modules.
--- @param name string function in `compact_lsp.handlers`
--- @return lsp.Handler
local function handler(name)
  return function(...)
    return require('compact_lsp.handlers')[name](...)
  end
end

---@type vim.lsp.Config
return {
  -- compact-lsp on $PATH, else the .venv of the checkout this plugin runs from (compact_lsp.config).
  cmd = require('compact_lsp.config').server_cmd() or { 'compact-lsp', '--stdio' },
  -- Every file buffer may feed the read-file state, so no filetype filter.
  --- The nearest `.compact` or `.git` directory, else the current directory, so that the agent works in any
  --- directory and every buffer of one project shares one server.
  --- @param bufnr integer
  --- @param on_dir fun(root_dir?: string)
  root_dir = function(bufnr, on_dir)
    local state = package.loaded['compact_lsp.state']
    if state and state.failed_start then
      return -- it stopped as it started (said once): not again for every file opened
    end
    on_dir(vim.fs.root(bufnr, root_markers) or vim.fn.getcwd())
  end,
  init_options = vim.empty_dict(),
  --- Says when the server is older or newer than this plugin expects (compact_lsp.version).
  on_init = function(client, result)
    require('compact_lsp.version').check(client, result)
  end,
  --- A running chat turn ends when its server goes (its answer will never come); a server that stopped as it
  --- started is said once, with why.
  on_exit = function(code, signal, client_id)
    local client = vim.lsp.get_client_by_id(client_id)
    local exit = { code = code, signal = signal, started = client ~= nil and client.initialized == true,
      cmd = client and client.config.cmd }
    vim.schedule(function()
      require('compact_lsp.client').gone(client_id, exit)
      if package.loaded['compact_lsp.chat_turn'] then
        require('compact_lsp.chat_turn').client_gone(client_id)
      end
    end)
  end,
  handlers = {
    ['compact/didChangeUsage'] = handler('did_change_usage'),
    ['compact/didCompact'] = handler('did_compact'),
    ['compact/chatEvent'] = handler('chat_event'),
    ['compact/didChangeOpenElsewhere'] = handler('did_change_open_elsewhere'),
    ['window/showMessageRequest'] = handler('show_message_request'),
  },
}
