-- Helpers for the plugin scenarios: wait on conditions (never fixed sleeps), drive the server, and write
-- what happened to a JSON file that pytest asserts on.
local H = {}

H.config = vim.json.decode(vim.env.NVIM_HARNESS_CONFIG)
H.timeout = H.config.timeout_ms or 30000

--- Everything the scenario observed; written to config.result.
H.results = { events = {}, progress = {}, notifications = {}, prompts = {} }

local write

--- Record `value` under `key` (written at once, so a run that hangs still shows how far it got).
function H.record(key, value)
  H.results[key] = value
  write()
end

--- Wait until `cond()` is truthy; fail the scenario with `what` on timeout.
function H.wait(what, cond, timeout)
  local ok = vim.wait(timeout or H.timeout, cond, 10)
  if not ok then
    error('timed out waiting for ' .. what, 2)
  end
end

function write()
  local file = assert(io.open(H.config.result, 'w'))
  file:write(vim.json.encode(H.results))
  file:close()
end

--- How the scenario ends: 'qall!' (default), or 'qa' to quit as a user would (a buffer that blocks it fails).
H.quit = 'qall!'

--- Run the scenario; any error is recorded with its traceback and Neovim exits non-zero.
function H.run(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.results.error = tostring(err)
  end
  write()
  if not ok then
    vim.cmd('cquit! 3')
  end
  local quit_ok, quit_err = pcall(vim.cmd, H.quit)
  if not quit_ok then -- still here: the quit was refused
    H.results.error = H.quit .. ' refused: ' .. tostring(quit_err)
    write()
    vim.cmd('cquit! 4')
  end
end

--- Type `keys` as a user would (termcodes such as <CR>, <Esc>, <C-c> allowed).
function H.type(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'xt', false)
end

--- Answer vim.ui.select prompts with the item whose title (or formatted text) is `answer(prompt, items)`'s
--- return; every prompt is recorded with its formatted items.
function H.answer_selects(answer)
  vim.ui.select = function(items, opts, on_choice)
    local titles = vim.tbl_map(function(item)
      return opts.format_item and opts.format_item(item) or tostring(item)
    end, items)
    table.insert(H.results.prompts, { prompt = opts.prompt, items = titles, kind = opts.kind })
    local wanted = answer(opts.prompt, titles)
    for i, title in ipairs(titles) do
      if title == wanted then
        return on_choice(items[i], i)
      end
    end
    on_choice(nil)
  end
end

--- Lines of a buffer.
function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

--- Read a file's text.
function H.read_file(path)
  local file = assert(io.open(path, 'r'))
  local text = file:read('*a')
  file:close()
  return text
end

-- Notifications the plugin shows.
vim.notify = function(msg, level)
  table.insert(H.results.notifications, { message = msg, level = level })
end

-- The plugin's User events, in order.
for _, pattern in ipairs({
  'CompactLspUsage',
  'CompactLspCompacted',
  'CompactLspCommand',
  'CompactLspChatEvent',
  'CompactLspChatDone',
  'CompactLspPrompt',
  'CompactLspBufferSync',
  'CompactLspFileChanged',
  'CompactLspHistory',
  'CompactLspProgressEcho',
}) do
  vim.api.nvim_create_autocmd('User', {
    pattern = pattern,
    callback = function(ev)
      table.insert(H.results.events, { event = pattern, data = ev.data })
    end,
  })
end

-- Work-done progress of compact_lsp, with what vim.lsp.status() says at that moment.
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    if client and client.name == 'compact_lsp' then
      local value = ev.data.params.value or {}
      table.insert(H.results.progress, {
        kind = value.kind,
        title = value.title,
        message = value.message,
        status = vim.lsp.status(),
      })
    end
  end,
})

--- Events recorded so far named `pattern` (optionally matching `pred`).
function H.events(pattern, pred)
  return vim.tbl_filter(function(e)
    return e.event == pattern and (not pred or pred(e.data))
  end, H.results.events)
end

--- The running compact_lsp client, once initialized.
function H.client()
  local client
  H.wait('the compact_lsp client to initialize', function()
    client = vim.lsp.get_clients({ name = 'compact_lsp' })[1]
    return client and client.initialized
  end)
  return client
end

--- A request to the server; returns its result, raises its error.
function H.request(method, params)
  local client = H.client()
  local done, err, result = false, nil, nil
  client:request(method, params, function(e, r)
    done, err, result = true, e, r
  end)
  H.wait('a response to ' .. method, function()
    return done
  end)
  if err then
    error(method .. ' failed: ' .. tostring(err.message), 2)
  end
  return result
end

--- Run `:Compact <args>` and wait until the plugin reports the subcommand done; returns the event data.
--- A subcommand that fails stops the scenario with the server's message, unless `may_fail` is set.
function H.compact(args, may_fail)
  local name = vim.split(args, ' ')[1]
  local before = #H.events('CompactLspCommand')
  vim.cmd('Compact ' .. args)
  local found
  H.wait(':Compact ' .. args, function()
    local events = H.events('CompactLspCommand')
    for i = before + 1, #events do
      if events[i].data.name == name then
        found = events[i].data
        return true
      end
    end
    return false
  end)
  if found.error and not may_fail then
    error(':Compact ' .. args .. ' failed: ' .. found.error, 2)
  end
  return found
end

--- Wait for a usage notification (after the `n`th one) whose usage satisfies `pred`; returns the usage.
function H.wait_usage(after, pred)
  local usage
  H.wait('a usage notification', function()
    local events = H.events('CompactLspUsage')
    for i = after + 1, #events do
      if not pred or pred(events[i].data.usage) then
        usage = events[i].data.usage
        return true
      end
    end
    return false
  end)
  return usage
end

--- Lines of the current buffer and whether the current window floats; then close it.
function H.take_float()
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local floating = vim.api.nvim_win_get_config(0).relative ~= ''
  if floating then
    vim.cmd.close()
  end
  return { lines = lines, floating = floating }
end

--- A tool_use/tool_result pair for a read of `path` returning `content`.
function H.read_pair(id, path, content)
  return {
    { role = 'assistant', content = { { type = 'tool_use', id = id, name = 'read_file', input = { file_path = path } } } },
    { role = 'user', content = { { type = 'tool_result', tool_use_id = id, content = content } } },
  }
end

--- Write `content` to `path` (creating directories).
function H.write_file(path, content)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local file = assert(io.open(path, 'w'))
  file:write(content)
  file:close()
end

--- Tell another Neovim something through the file `path`, whole or not at all: written beside it, then renamed
--- onto it. The other side polls for the file and reads it at once; a file made by `io.open` is there, empty,
--- before its text (under load for long), and a read then got '' (the two-window test's missed append).
function H.signal(path, content)
  H.write_file(path .. '.partial', content)
  assert(os.rename(path .. '.partial', path))
end

--- Distinct, token-heavy text: `n` numbered lines.
function H.text(label, n)
  local lines = {}
  for i = 1, n do
    lines[i] = string.format('%s line %d: def handler_%d(request): return compute(request, %d)', label, i, i, i * 7)
  end
  return table.concat(lines, '\n') .. '\n'
end

return H
