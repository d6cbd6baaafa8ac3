-- Two Neovim windows on one folder, the first one: it makes a session and works in it while the second one
-- (two_windows_follower.lua) looks at it. Signals go through files in the workspace, each written whole (H.signal).
local H = require('nvim_harness')

local function wait_for(name)
  H.wait(name, function()
    return vim.uv.fs_stat(H.config.workspace .. '/' .. name) ~= nil
  end, 60000)
end

H.run(function()
  H.write_file(H.config.workspace .. '/main.py', 'print(1)\n')
  vim.cmd.edit(vim.fn.fnameescape(H.config.workspace .. '/main.py')) -- opening a file starts the server
  local sid = H.request('compact/newSession', { title = 'Shared work' }).sessionId
  local ws = H.config.workspace
  local messages = { { role = 'user', content = 'Read the modules' } }
  for i = 1, 6 do -- enough that a full compaction would make it smaller
    local path = ws .. '/m' .. i .. '.py'
    local content = H.text('owner' .. i, 150)
    H.write_file(path, content)
    vim.list_extend(messages, H.read_pair('toolu_m' .. i, path, content))
  end
  table.insert(messages, { role = 'assistant', content = 'Read it.' })
  H.request('compact/append', { sessionId = sid, messages = messages })
  H.record('session', sid)
  H.signal(ws .. '/owner-ready', sid)
  wait_for('follower-tried')
  -- the owner goes on: the follower's status line must move with it
  local more = { { role = 'user', content = 'And b.py' } }
  vim.list_extend(more, H.read_pair('toolu_b', ws .. '/b.py', H.text('more', 120)))
  table.insert(more, { role = 'assistant', content = 'Read b.py too.' })
  H.request('compact/append', { sessionId = sid, messages = more })
  H.record('total', H.request('compact/status', { sessionId = sid }).usage.total)
  H.signal(ws .. '/owner-appended', tostring(H.results.total))
  wait_for('follower-done')
end)
