-- Two Neovim windows on one folder, the second one: the session the first window writes is the current one
-- here too; :Compact micro is refused with the owner named, and the status line follows the owner's appends.
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
  -- a chat message here is refused the same way, before any model call, in the chat itself
  require('compact_lsp.chat').open('Hello from the second window')
  H.wait('the refused chat turn', function()
    return #H.events('CompactLspChatDone') > 0
  end)
  H.record('chat_lines', H.lines(require('compact_lsp.state').chat_buffer(require('compact_lsp').session())))
  vim.cmd('stopinsert')
  vim.cmd('wincmd p')
  local before = #H.events('CompactLspUsage')
  H.signal(H.config.workspace .. '/follower-tried', 'yes')
  local total = assert(tonumber(wait_for('owner-appended')), 'owner-appended holds no total')
  H.wait_usage(before, function(usage)
    return usage.total == total
  end)
  H.record('statusline', require('compact_lsp').statusline())
  H.record('followed_total', total)
  H.signal(H.config.workspace .. '/follower-done', 'yes')
end)
