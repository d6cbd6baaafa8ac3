-- A chat turn through :CompactChat with no file open (the chat buffer starts the server itself), against
-- the loopback Messages-API stub; permission prompts are answered through vim.ui.select like a user would.
local H = require('nvim_harness')

H.run(function()
  local extra = H.config.extra
  vim.ui.select = function(items, opts, on_choice)
    local titles = vim.tbl_map(function(item)
      return opts.format_item and opts.format_item(item) or tostring(item)
    end, items)
    table.insert(H.results.prompts, { prompt = opts.prompt, items = titles })
    for _, item in ipairs(items) do
      if item.title == extra.answer then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end

  -- Does the server have the agent yet?
  local probe_done, probe_err = false, nil
  vim.cmd('CompactChat')
  H.wait('the chat session', function()
    return require('compact_lsp').session() ~= nil
  end)
  local client = H.client()
  local session = require('compact_lsp').session()
  local buf = require('compact_lsp.chat').buffer(session)
  H.record('buftype', vim.bo[buf].buftype)
  H.record('buf_name', vim.api.nvim_buf_get_name(buf))
  H.record('buf_attached', vim.lsp.buf_is_attached(buf, client.id))
  client:request('compact/chat', vim.empty_dict(), function(err)
    probe_done, probe_err = true, err
  end)
  H.wait('the compact/chat probe', function()
    return probe_done
  end)
  if probe_err and probe_err.code == -32601 then
    H.record('chat_unavailable', probe_err.message)
    return
  end

  vim.cmd('CompactChat ' .. extra.text)
  H.wait('the chat turn to end', function()
    return #H.events('CompactLspChatDone') > 0
  end)
  H.record('done', H.events('CompactLspChatDone')[1])
  H.record('lines', vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  H.record('statusline', require('compact_lsp').statusline())
end)
