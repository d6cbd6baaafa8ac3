-- Claude Code beside the editor: its live session (a transcript in the watched project directory) is listed by
-- :Compact session marked read-only and can be made current; :Compact claude-hook installs and removes the hook
-- in the project's and the user's (a temporary HOME) Claude Code settings, and a broken settings file is an error.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.client()
  local followed
  H.wait("Claude Code's session to be listed", function()
    for _, item in ipairs(H.request('compact/sessions', vim.empty_dict())) do
      if item.source == 'claude-code' then
        followed = item
        return true
      end
    end
    return false
  end)
  H.record('followed', followed)
  H.record('completion', vim.fn.getcompletion('Compact session claude-', 'cmdline'))
  H.answer_selects(function(_, items)
    for _, item in ipairs(items) do
      if item:find('[read-only]', 1, true) then
        return item
      end
    end
  end)
  H.record('select', H.compact('session'))
  H.record('current', require('compact_lsp').session())
  H.wait('the status line to show the followed usage', function()
    return require('compact_lsp').statusline() ~= ''
  end)
  H.record('statusline', require('compact_lsp').statusline())

  H.record('hook_completion', vim.fn.getcompletion('Compact claude-hook ', 'cmdline'))
  H.record('install', H.compact('claude-hook'))
  H.record('again', H.compact('claude-hook project'))
  H.record('user', H.compact('claude-hook user'))
  H.record('uninstall', H.compact('claude-hook uninstall'))
  H.write_file(vim.env.HOME .. '/.claude/settings.json', '{broken')
  H.record('broken', H.compact('claude-hook user uninstall', true))
  H.record('bad_word', H.compact('claude-hook everywhere', true))
end)
