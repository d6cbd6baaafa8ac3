-- Two Neovim windows on one folder, the second one: the session the first window writes is the current one
-- here too, listed as open elsewhere; :Compact micro is refused with the owner named, the chat opens read-only
-- naming it, and the status line and the chat follow the owner's appends.
local H = require('nvim_harness')

local function wait_for(name)
  local text
  H.wait(name, function()
    local f = io.open(H.config.workspace .. '/' .. name)
    if f then
      text = f:read('*a')
      f:close()
    end
    return text ~= nil
  end, 60000)
  return text
end

H.run(function()
  local sid = wait_for('owner-ready')
  vim.cmd.edit(vim.fn.fnameescape(H.config.workspace .. '/main.py'))
  H.client()
  local listed = H.request('compact/sessions', vim.empty_dict())
  H.record('listed', vim.tbl_map(function(s)
    return s.sessionId
  end, listed))
  for _, s in ipairs(listed) do
    if s.sessionId == sid then
      H.record('elsewhere', s.openElsewhere or vim.NIL)
    end
  end
  H.answer_selects(function(_, items)
    for _, item in ipairs(items) do
      if item:find('Shared work', 1, true) then
        return item
      end
    end
  end)
  H.compact('session')
  local refused = H.compact('micro', true)
  H.record('refused', refused.error or '')
  H.record('notifications_after_refusal', vim.deepcopy(H.results.notifications))
  -- the chat opens read-only, the owner named at its top; a message here is refused the same way, never sent
  local state = require('compact_lsp.state')
  require('compact_lsp.chat').open('Hello from the second window')
  H.wait('the read-only chat', function()
    return state.chat_buffer(sid) ~= nil and #H.results.notifications > #H.results.notifications_after_refusal
  end)
  H.record('chat_lines', H.lines(state.chat_buffer(sid)))
  H.record('chat_winbar', vim.wo.winbar)
  H.record('notifications_after_chat', vim.deepcopy(H.results.notifications))
  vim.cmd('wincmd p')
  local before = #H.events('CompactLspUsage')
  H.signal(H.config.workspace .. '/follower-tried', 'yes')
  local total = assert(tonumber(wait_for('owner-appended')), 'owner-appended holds no total')
  H.wait_usage(before, function(usage)
    return usage.total == total
  end)
  H.record('statusline', require('compact_lsp').statusline())
  H.record('followed_total', total)
  H.wait("the owner's answer in the chat", function() -- the chat follows the owner's work too
    return vim.tbl_contains(H.lines(state.chat_buffer(sid)), 'Claude: Read b.py too.')
  end)
  H.record('chat_after', H.lines(state.chat_buffer(sid)))
  H.signal(H.config.workspace .. '/follower-done', 'yes')
end)
