-- compact-lsp user commands, highlight groups and the progress listener. Loads no module until used.
if vim.g.loaded_compact_lsp then
  return
end
vim.g.loaded_compact_lsp = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('compact-lsp needs Neovim 0.11 or newer', vim.log.levels.WARN)
  return
end

vim.api.nvim_create_user_command('Compact', function(opts)
  require('compact_lsp.commands').dispatch(opts)
end, {
  nargs = '*',
  desc = 'compact-lsp: micro | full [instructions] | undo | status | files | pin [path] | unpin [path] | cancel | session [id]',
  complete = function(arglead, cmdline)
    return require('compact_lsp.commands').complete(arglead, cmdline)
  end,
})

vim.api.nvim_create_user_command('CompactInstall', function()
  require('compact_lsp.install').run()
end, { desc = "compact-lsp: install the server into a virtual environment in the plugin's checkout (.venv)" })

vim.api.nvim_create_user_command('CompactChat', function(opts)
  require('compact_lsp.chat').open(opts.args, { new = opts.bang })
end, { nargs = '*', bang = true, desc = 'compact-lsp: chat with the built-in agent (! starts a new chat)' })

local function highlights()
  local links = {
    CompactLspOk = 'DiagnosticOk',
    CompactLspWarning = 'DiagnosticWarn',
    CompactLspCritical = 'DiagnosticError',
    CompactLspKindSystem = 'Comment',
    CompactLspKindMemory = 'Special',
    CompactLspKindUser = 'String',
    CompactLspKindAssistant = 'Function',
    CompactLspKindToolUse = 'Type',
    CompactLspKindToolResult = 'Constant',
    CompactLspKindAttachments = 'Identifier',
    CompactLspChatUser = 'Title',
    CompactLspChatAgent = 'Function',
    CompactLspChatTool = 'Comment',
    CompactLspChatError = 'DiagnosticError',
    CompactLspChatMark = 'NonText',
  }
  for group, target in pairs(links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end
highlights()

local group = vim.api.nvim_create_augroup('compact_lsp', { clear = true })
vim.api.nvim_create_autocmd('ColorScheme', { group = group, callback = highlights })
-- One clear message when the first file opens and the server cannot start (Neovim itself only logs it).
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  group = group,
  callback = function(ev)
    if vim.bo[ev.buf].buftype ~= '' or not (vim.lsp.is_enabled and vim.lsp.is_enabled('compact_lsp')) then
      return
    end
    local missing = require('compact_lsp.config').missing_server()
    if missing then
      vim.notify_once(missing, vim.log.levels.WARN)
    end
    return true -- checked once
  end,
})
-- When a server starts: learn its current session (persisted by the server) and the session list.
vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'compact_lsp' and not require('compact_lsp.state').session_id then
      require('compact_lsp.sessions').refresh()
    end
  end,
})
-- Progress is tracked without setup() too (`:Compact cancel` needs the running tokens).
vim.api.nvim_create_autocmd('LspProgress', {
  group = group,
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'compact_lsp' then
      require('compact_lsp.progress').on_progress(ev)
    end
  end,
})
