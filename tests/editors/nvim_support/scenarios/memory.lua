-- The managed-memory scenario: a read of a project memory topic and several ordinary reads; after
-- :Compact micro the memory marker is still in compact/messages and the ordinary reads are cleared.
local H = require('nvim_harness')

H.run(function()
  local ws = H.config.workspace
  local marker = H.config.extra.marker
  local memory = ws .. '/.compact/memory/topic.md'
  local memory_text = '# Deploy notes\n\n' .. marker .. '\n\n' .. H.text('memory', 30)
  H.write_file(memory, memory_text)
  local reads = {}
  for i = 1, 5 do
    local path = ws .. '/lib/part' .. i .. '.py'
    local content = H.text('part' .. i, 60)
    H.write_file(path, content)
    reads[i] = { id = 'toolu_part_' .. i, path = path, content = content }
  end

  vim.cmd.edit(vim.fn.fnameescape(reads[1].path))
  H.client()
  local sid = H.request('compact/newSession', { title = 'memory' }).sessionId
  H.compact('session ' .. sid)

  -- The memory read is the oldest result, the first that microcompaction would clear.
  local messages = { { role = 'user', content = 'Check the deploy notes, then the library.' } }
  vim.list_extend(messages, H.read_pair('toolu_memory', memory, memory_text))
  for _, r in ipairs(reads) do
    vim.list_extend(messages, H.read_pair(r.id, r.path, r.content))
  end
  table.insert(messages, { role = 'assistant', content = 'The library has five parts.' })
  H.request('compact/append', { sessionId = sid, messages = messages })

  H.record('micro', H.compact('micro'))
  local view = H.request('compact/messages', { sessionId = sid })
  local results = {}
  for _, message in ipairs(view.messages) do
    if type(message.content) == 'table' then
      for _, block in ipairs(message.content) do
        if block.type == 'tool_result' then
          local text = block.content
          if type(text) == 'table' then
            text = table.concat(
              vim.tbl_map(function(b)
                return b.text or ''
              end, text),
              '\n'
            )
          end
          results[block.tool_use_id] = text
        end
      end
    end
  end
  H.record('results', results)
end)
