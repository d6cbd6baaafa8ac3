-- Codex beside the editor: a rollout of this workspace in the watched Codex home is listed by :Compact session
-- as Codex's, read-only; :Compact codex-hook user installs the hook in Codex's config and uninstall removes it.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  H.write_file(ws .. '/main.py', 'print("hello")\n')
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/main.py'))
  H.client()
  local followed
  H.wait("Codex's session to be listed", function()
    for _, item in ipairs(H.request('compact/sessions', vim.empty_dict())) do
      if item.source == 'codex' then
        followed = item
        return true
      end
    end
    return false
  end)
  H.record('followed', followed)
  H.answer_selects(function(_, items)
    for _, item in ipairs(items) do
      if item:find('Codex', 1, true) then
        return item
      end
    end
  end)
  H.record('select', H.compact('session'))
  H.record('hook_completion', vim.fn.getcompletion('Compact codex-hook ', 'cmdline'))
  H.record('user', H.compact('codex-hook user'))
  H.record('again', H.compact('codex-hook user'))
  H.record('uninstall', H.compact('codex-hook user uninstall'))
end)
