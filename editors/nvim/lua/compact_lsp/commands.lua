--- `:Compact {subcommand}`: each subcommand calls the server and reports what happened.
--- When a subcommand finishes, `User CompactLspCommand` fires with data {name, result?, error?}.
local client = require('compact_lsp.client')
local format = require('compact_lsp.format')
local state = require('compact_lsp.state')
local words = require('compact_lsp.words')

local M = {}

---@param msg string
---@param level integer?
local function notify(msg, level)
  words.notify(words.PREFIX .. msg, level)
end

--- Report the end of a subcommand to listeners (statuslines, scripts, tests).
---@param name string
---@param err lsp.ResponseError?
---@param result any
local function done(name, err, result)
  local message = err and client.message(err) or nil
  if message then
    vim.notify(message, vim.log.levels.ERROR)
  end
  require('compact_lsp.handlers').emit('CompactLspCommand', {
    name = name,
    result = result,
    error = message,
  })
end

local function describe_outcome(result)
  return words.outcome(result)
end

---@param result {trigger: string?, tokensBefore: integer, tokensAfter: integer, cleared: table[], protected: table[]?}
---@return string
function M.describe_micro(result)
  if result.changed == false then
    return describe_outcome(result)
  end
  local cleared = result.cleared or {}
  local protected = result.protected or {}
  local kept = #protected > 0
      and string.format('; kept %d managed-memory read%s', #protected, #protected == 1 and '' or 's')
    or ''
  if #cleared == 0 then
    return 'nothing to clear (' .. format.tokens(result.tokensAfter) .. ' tokens)' .. kept
  end
  return string.format(
    'cleared %d tool result%s, %s%s',
    #cleared,
    #cleared == 1 and '' or 's',
    format.change(result.tokensBefore, result.tokensAfter),
    kept
  )
end

---@param result {tokensBefore: integer, tokensAfter: integer, summarizer: string?, rehydrated: table[]?}
---@return string
function M.describe_full(result)
  if result.changed == false then
    return describe_outcome(result)
  end
  local rehydrated = result.rehydrated or {}
  local how = result.summarizer and (' (' .. result.summarizer .. ' summary)') or ''
  if result.fallback then
    how = ' (offline summary: the API failed' .. (result.fallbackReason and (': ' .. result.fallbackReason) or '') .. ')'
  end
  return string.format(
    'compacted the conversation, %s%s%s',
    format.change(result.tokensBefore, result.tokensAfter),
    how,
    #rehydrated > 0 and string.format(', re-attached %d file%s', #rehydrated, #rehydrated == 1 and '' or 's')
      or ''
  )
end

---@class compact_lsp.Subcommand
---@field run fun(args: string[])
---@field desc string

---@type table<string, compact_lsp.Subcommand>
M.subcommands = {
  help = {
    desc = "what each subcommand does (:help compact_lsp-commands)",
    run = function()
      vim.cmd.help('compact_lsp-commands')
    end,
  },
  micro = {
    desc = 'clear old tool results now (managed-memory reads are kept)',
    run = function()
      client.execute('compact.microcompact', nil, function(err, result)
        if not err then
          notify(M.describe_micro(result))
        end
        done('micro', err, result)
      end)
    end,
  },
  full = {
    desc = 'summarise the conversation and re-attach recent files; optional instructions for the summary',
    run = function(args)
      local instructions = table.concat(args, ' ')
      local extra = instructions ~= '' and { instructions = instructions } or nil
      client.execute('compact.compact', extra, function(err, result)
        if err and type(err.data) == 'table' and err.data.kind == 'cancelled' then
          -- a cancel the user asked for is an outcome, not a failure
          result, err = { changed = false, cancelled = true, reason = 'The compaction was cancelled; nothing changed.' }, nil
        end
        if not err then
          notify(M.describe_full(result), result.fallback and vim.log.levels.WARN or nil)
        end
        done('full', err, result)
      end)
    end,
  },
  undo = {
    desc = 'restore the conversation as it was before the last compaction',
    run = function()
      client.execute('compact.undo', nil, function(err, result)
        if not err and result.changed == false then
          notify(describe_outcome(result))
        elseif not err then
          notify('restored the conversation before the last compaction (' .. format.tokens(result.tokensAfter) .. ' tokens)')
        end
        done('undo', err, result)
      end)
    end,
  },
  status = {
    desc = 'context usage by kind, biggest items, cleared results and read files, in a float',
    run = function()
      client.execute('compact.status', nil, function(err, result)
        if not err then
          local view = require('compact_lsp.view')
          view.show(view.status_doc(result), 'Context')
          require('compact_lsp.watch').from_status(result, (client.get() or {}).root_dir)
        end
        done('status', err, result)
      end)
    end,
  },
  timeline = {
    desc = 'every compaction of this session, whatever agent ran it: figures, summary, what was cleared, receipts',
    run = function()
      require('compact_lsp.timeline').run(notify, function(err, result)
        done('timeline', err, result)
      end, function(err, result)
        done('workingset', err, result)
      end)
    end,
  },
  workingset = require('compact_lsp.working_set').subcommand(notify, done),
  files = {
    desc = 'which files a full compaction would re-attach, and why',
    run = function()
      client.execute('compact.rehydrationPreview', nil, function(err, result)
        if not err then
          local view = require('compact_lsp.view')
          view.show(view.files_doc(result), 'Rehydration preview')
        end
        done('files', err, result)
      end)
    end,
  },
  pin = {
    desc = 'keep a file through compaction, re-attached first (default: this buffer\'s file; or a toolu_ id)',
    run = function(args)
      require('compact_lsp.pins').run(true, args, notify, function(err, result)
        done('pin', err, result)
      end)
    end,
  },
  unpin = {
    desc = 'stop keeping a pinned file or tool result',
    run = function(args)
      require('compact_lsp.pins').run(false, args, notify, function(err, result)
        done('unpin', err, result)
      end)
    end,
  },
  cancel = {
    desc = 'cancel a running full compaction (nothing changes)',
    run = function()
      local count = require('compact_lsp.progress').cancel_all()
      notify(count > 0 and 'cancelling the compaction' or 'no compaction is running')
      done('cancel', nil, { cancelled = count })
    end,
  },
  rename = {
    desc = 'give the current session a new title (asked for when not given)',
    run = function(args)
      local sessions = require('compact_lsp.sessions')
      local id = state.session_id
      local function rename(title)
        if not title or vim.trim(title) == '' then
          notify('rename cancelled: no title given')
          return done('rename', nil, { changed = false, kind = 'cancelled' })
        end
        sessions.rename(id, title, function(err)
          if not err then
            notify('session renamed: ' .. format.fit(sessions.title(id) or vim.trim(title), 60))
            local chat = state.chat_buffer(id)
            if chat then
              require('compact_lsp.chat_buffer').name_buffer(chat, id)
            end
          end
          done('rename', err, not err and { sessionId = id, title = sessions.title(id) } or nil)
        end)
      end
      if #args > 0 then
        return rename(table.concat(args, ' '))
      end
      vim.ui.input({ prompt = 'Session title: ', default = sessions.title(id) or '' }, rename)
    end,
  },
  session = {
    desc = 'choose the current session, from a list or by id (the status line and the commands follow it)',
    run = function(args)
      local sessions = require('compact_lsp.sessions')
      --- Say which session is current now (its title, and whether it is read-only here).
      local function report(id)
        local title = sessions.title(id)
        local name = (title and title ~= '') and format.fit(title, 40) or id
        local owner = sessions.owner(id)
        local read_only = owner and (' (' .. owner .. "'s, read-only: " .. words.IMPORT .. ' continues it)') or ''
        -- whose it is stays on the line when the whole does not fit: the title gives way first
        local head = words.PREFIX .. 'current session: '
        local room = vim.v.echospace - vim.fn.strdisplaywidth(head .. read_only)
        local short = owner and (head .. format.fit(name, math.max(room, 12)) .. read_only)
        words.notify(words.PREFIX .. 'current session: ' .. name .. read_only, nil, { short = short })
        done('session', nil, { sessionId = state.session_id })
      end
      local function chosen(id)
        sessions.select(id, function(err)
          if err then
            return done('session', err, { sessionId = state.session_id })
          end
          if not sessions.title(id) and not sessions.read_only(id) then
            -- chosen by id before the list was fetched: fetch it, for the title and whether it is read-only
            return sessions.refresh(function()
              report(id)
            end)
          end
          report(id)
        end)
      end
      if args[1] then
        return chosen(args[1])
      end
      sessions.refresh(function(err, items)
        if err then
          return done('session', err, nil)
        end
        if #items == 0 then
          notify('no session in this workspace yet: :CompactChat starts one')
          return done('session', nil, { sessionId = nil })
        end
        vim.ui.select(items, {
          prompt = 'compact-lsp session',
          kind = 'compact_lsp_session',
          format_item = sessions.describe,
        }, function(choice)
          if choice then
            return chosen(choice.sessionId)
          end
          done('session', nil, { sessionId = state.session_id })
        end)
      end)
    end,
  },
  import = {
    desc = "continue an agent's session (Claude Code's, Codex's: read-only here) as your own copy: this chat's, the current one, or [id]",
    run = function(args)
      local sessions = require('compact_lsp.sessions')
      local id = args[1] or vim.b.compact_lsp_session or state.session_id
      if not id then
        notify("no agent's session to import: :Compact session lists them")
        return done('import', nil, { changed = false, kind = 'no_session' })
      end
      local function go()
        if not sessions.read_only(id) then
          notify('nothing to import: ' .. format.fit(sessions.title(id) or id, 40) .. ' is already yours to continue')
          return done('import', nil, { changed = false, kind = 'not_followed' })
        end
        require('compact_lsp.chat').continue_followed(id, function(err, new_id, result)
          if not err then
            local again = type(result) == 'table' and result.alreadyImported and ' (your earlier copy)' or ''
            notify('your own copy' .. again .. ', now current: ' .. format.fit(sessions.title(new_id) or new_id, 50))
          end
          done('import', err, not err and { sessionId = new_id, existing = type(result) == 'table' and result.alreadyImported or nil } or nil)
        end)
      end
      if #state.sessions == 0 then
        return sessions.refresh(go)
      end
      go()
    end,
  },
}

local agent_hooks = require('compact_lsp.agent_hooks')
for name, hook in pairs(agent_hooks.HOOKS) do
  local desc = 'install the hook that adds what ' .. hook[2] .. "'s compaction drops: [project|user] [uninstall]"
  M.subcommands[name] = { desc = desc, run = function(args) agent_hooks.install(name, hook[1], args, done) end }
end

--- Subcommand names, sorted.
---@return string[]
function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

--- Entry point of `:Compact`.
---@param opts {fargs: string[]}
function M.dispatch(opts)
  local name = opts.fargs[1] or 'status'
  local sub = M.subcommands[name]
  if not sub then
    local short = words.PREFIX .. 'unknown subcommand ' .. name .. ': :Compact help says what each does'
    return words.notify(short .. ' (' .. table.concat(M.names(), ', ') .. ')', vim.log.levels.ERROR,
      { fit = true, short = short })
  end
  local args = vim.list_slice(opts.fargs, 2)
  if name == 'session' or name == 'cancel' or agent_hooks.HOOKS[name] or name == 'import' or name == 'help' then
    return sub.run(args)
  end
  -- The others act on the current session; with none in the workspace, say how to get one.
  require('compact_lsp.sessions').current(function(session_id, err)
    if err then
      return done(name, err, nil)
    end
    if not session_id then
      notify('no session in this workspace yet: :CompactChat starts one')
      return done(name, nil, { changed = false, kind = 'no_session' })
    end
    sub.run(args)
  end)
end

--- Completion for `:Compact`: subcommands, then session ids after `session`.
---@param arglead string
---@param cmdline string
---@return string[]
function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, '%s+', { trimempty = true })
  local completing_first = #words == 1 or (#words == 2 and arglead ~= '')
  if completing_first then
    return vim.tbl_filter(function(name)
      return vim.startswith(name, arglead)
    end, M.names())
  end
  if words[2] == 'pin' or words[2] == 'unpin' then
    return require('compact_lsp.pins').complete(words[2] == 'pin', arglead)
  end
  if agent_hooks.HOOKS[words[2]] then
    return vim.tbl_filter(function(word)
      return vim.startswith(word, arglead)
    end, agent_hooks.ARGS)
  end
  if words[2] == 'session' or words[2] == 'import' then
    local sessions = require('compact_lsp.sessions')
    local ids = vim.tbl_filter(function(id)
      return words[2] == 'session' or sessions.read_only(id)
    end, sessions.complete_ids())
    return vim.tbl_filter(function(id)
      return vim.startswith(id, arglead)
    end, ids)
  end
  return {}
end

return M
