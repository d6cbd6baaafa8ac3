-- The agent edits files that are open in Neovim: a clean buffer reloads; a buffer with unsaved changes keeps
-- them (an edit_file whose old text is in it is applied to it too; a write_file is not, and the user is told);
-- the prompts say so first. Then :w in each, and a change made outside Neovim to a file the agent read.
local H = require('nvim_harness')

local function buffer_state(path)
  local buf = vim.fn.bufnr(path)
  return { lines = H.lines(buf), modified = vim.bo[buf].modified, disk = H.read_file(path) }
end

H.run(function()
  local ws = H.config.workspace
  local files = {}
  for _, name in ipairs({ 'a', 'b', 'c', 'd' }) do
    files[name] = ws .. '/' .. name .. '.py'
  end
  H.write_file(files.a, 'def a():\n    return 1\n')
  H.write_file(files.b, 'def b():\n    return 2\n')
  H.write_file(files.c, 'def c():\n    return 3\n')
  H.write_file(files.d, 'def d():\n    return 4\n')
  H.answer_selects(function()
    return 'Allow once'
  end)

  -- a.py stays clean; b.py and c.py get a line the user has not saved yet.
  for _, name in ipairs({ 'c', 'b', 'a' }) do
    vim.cmd.edit(vim.fn.fnameescape(files[name]))
    if name ~= 'a' then
      H.type('ggO# my unsaved note<Esc>')
    end
  end
  H.client()

  vim.cmd('CompactChat Update a, b and c')
  H.wait('the chat turn to end', function()
    return #H.events('CompactLspChatDone') > 0
  end)
  H.record('done', H.events('CompactLspChatDone')[1])
  H.record('syncs', vim.tbl_map(function(e)
    return e.data
  end, H.events('CompactLspBufferSync')))
  for _, name in ipairs({ 'a', 'b', 'c' }) do
    H.record(name, buffer_state(files[name]))
  end

  -- :w in the clean buffer keeps the agent's edit; in the merged one it saves both, without a prompt.
  for _, name in ipairs({ 'a', 'b' }) do
    vim.cmd.buffer(vim.fn.bufnr(files[name]))
    vim.cmd.write()
    H.record(name .. '_after_write', H.read_file(files[name]))
  end

  -- Someone changes d.py outside Neovim (the agent read it): the user hears of it, once.
  local before = #H.events('CompactLspFileChanged')
  H.write_file(files.d, 'def d():\n    return 40\n')
  H.wait('the change notice', function()
    return #H.events('CompactLspFileChanged') > before
  end)
  H.record('changed', vim.tbl_map(function(e)
    return e.data.path
  end, H.events('CompactLspFileChanged')))
end)
