--- What the plugin adds to Neovim: the user commands, highlight groups and autocommands. `load()` may run any
--- number of times (plugin/compact_lsp.lua and setup() both call it): a plugin manager that lazy-loads on `cmd`
--- deletes its stand-in commands when it loads the plugin, and setup() makes the real ones again. Requires no
--- other module until a command or event needs it.
local M = {}

--- `:Compact` subcommands for <Tab>, without loading commands.lua.
---@param arglead string
---@param cmdline string
---@return string[]
local function complete(arglead, cmdline)
  return require('compact_lsp.commands').complete(arglead, cmdline)
end

local function create_commands()
  local command = vim.api.nvim_create_user_command
  command('Compact', function(opts)
    require('compact_lsp.commands').dispatch(opts)
  end, {
    nargs = '*',
    desc = 'compact-lsp: help | status | micro | full [instructions] | undo | timeline | workingset | files | pin | unpin | cancel | session | import | rename | claude-hook',
    complete = complete,
  })
  command('CompactInstall', function()
    require('compact_lsp.install').run()
  end, { desc = "compact-lsp: install the server into a virtual environment in the plugin's checkout (.venv)" })
  command('CompactChat', function(opts)
    require('compact_lsp.chat').open(opts.args, { new = opts.bang })
  end, { nargs = '*', bang = true, desc = 'compact-lsp: chat with the built-in agent (! starts a new chat)' })
  command('CompactSend', function(opts)
    require('compact_lsp.chat').send_range(opts.line1, opts.line2, opts.args)
  end, {
    nargs = '*',
    range = true,
    desc = 'compact-lsp: send the selected lines (default: the whole buffer) to the chat, with an optional question',
  })
end

--- Highlight links (all `default`, so a colour scheme's own choice wins).
M.links = {
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
  CompactLspChatReadOnly = 'DiagnosticInfo',
}

local function highlights()
  for group, target in pairs(M.links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

local function autocommands()
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
        -- cut to fit the line (whole in :messages): as Neovim starts, a wrapped one stopped it at "Press ENTER"
        -- before the file was drawn
        local function tell()
          local short = missing:gsub(' %(or: .*%)$', '') -- the shell's way in :messages
          require('compact_lsp.words').notify(missing, vim.log.levels.WARN, { fit = true, short = short })
        end
        if vim.v.vim_did_enter == 1 or #vim.api.nvim_list_uis() == 0 then -- no screen to draw first
          tell()
        else
          vim.api.nvim_create_autocmd('VimEnter', { group = group, once = true, callback = vim.schedule_wrap(tell) })
        end
      end
      return true -- checked once
    end,
  })
  -- When a server starts (the first, or a new one after the last died): every open file attached, its current
  -- session (persisted by the server), the session list and the usage learnt again.
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == 'compact_lsp' then
        require('compact_lsp.client').adopt(client)
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
end

--- Make the commands, highlights and autocommands (again: the last call's are the ones in force).
function M.load()
  create_commands()
  highlights()
  autocommands()
end

return M
