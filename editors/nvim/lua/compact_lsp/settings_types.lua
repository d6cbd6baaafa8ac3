---@meta
-- Generated from the settings' declarations by `python -m compact_lsp.cli.generate_settings`; do not edit.
-- The server settings given as `settings` to require('compact_lsp').setup() (docs/protocol.md); each class
-- is the `$defs` entry of that name in docs/protocol.schema.json. Annotations only.

---@class compact_lsp.Settings
---@field contextWindow integer? The model's context window in tokens. (default: 200000)
---@field model string? Model for the agent. (default: "claude-sonnet-4-5")
---@field compactionModel string? Cheaper model for summaries (unset: model).
---@field baseUrl string? Messages API base URL (unset: ANTHROPIC_BASE_URL, else the SDK's default).
---@field apiKey string? Only if the key is not in the server's environment (ANTHROPIC_API_KEY); never logged or stored.
---@field readTools string[]? Tool names whose results are file reads. (default: ["read_file", "Read"])
---@field sessionDir string? Where sessions are stored (unset: the user state directory).
---@field preCompactCommand string? A shell command run in the workspace before each full compaction; its output is added to the compaction instructions.
---@field additionalDirectories string[]? Directories outside the workspace folders that the agent may read and edit and that rehydration may re-attach files from (like Claude Code's /add-dir); relative ones are relative to the first workspace folder. (default: [])
---@field memory compact_lsp.MemorySettings?
---@field microcompact compact_lsp.MicrocompactSettings?
---@field rehydration compact_lsp.RehydrationSettings?
---@field autoCompact compact_lsp.AutoCompactSettings?
---@field sessionMemory compact_lsp.SessionNotesSettings?
---@field agent compact_lsp.AgentSettings?
---@field claudeCode compact_lsp.ClaudeCodeSettings?
---@field codex compact_lsp.CodexSettings?
---@field qwenCode compact_lsp.QwenCodeSettings?
---@field geminiCli compact_lsp.GeminiCliSettings?

---@class compact_lsp.MemorySettings
---@field projectRoot string? Managed-memory root of the project, anywhere (unset: <workspace>/.compact/memory, plus Claude Code's and Qwen Code's project memory folders when they exist).
---@field userRoot string? The user's managed memory (unset: <user config dir>/compact-lsp/memory).
---@field teamRoot string? A team's shared managed memory (unset: off).

---@class compact_lsp.MicrocompactSettings
---@field keepRecent integer? Compactable tool results always kept (floored at 1). (default: 5)
---@field idleMinutes number? Idle trigger in minutes since the last response; -1 turns it off. (default: 60)
---@field sizeThresholdTokens integer? Size trigger in tokens on the tool results outside the kept ones (all of them are cleared when they pass it, so the next rewrite waits for as much again); -1 turns it off; unset: sizeThresholdPercent of the context window.
---@field sizeThresholdPercent number? The size trigger as a share of the context window, in percent (40k at 200k). (default: 20)
---@field compactableTools string[]? Tools whose old results may be cleared. (default: the server's list (docs/engine.md))

---@class compact_lsp.RehydrationSettings
---@field maxFiles integer? At most this many files re-attached after compaction (a bound: the token budget decides which). (default: 50)
---@field tokenBudget integer? Files are re-attached after compaction, best ranked first, until this many tokens; unset: budgetPercent of the context window.
---@field maxTokensPerFile integer? A file over this many tokens comes back as the lines the agent read or edited (else its head); unset: filePercent of the context window.
---@field budgetPercent number? The re-attached files' budget as a share of the context window, in percent (20k at 200k). (default: 10)
---@field filePercent number? The per-file cap as a share of the context window, in percent (8k at 200k). (default: 4)

---@class compact_lsp.AutoCompactSettings
---@field enabled boolean? Compact automatically at the threshold. (default: true)
---@field threshold (integer|string)? Auto-compact threshold in tokens (150000) or a percent of the window ("80%"); unset: min(85% of the window, window − 33k).
---@field summaryPercent number? The summary's size as a share of the context window, in percent (20k at 200k, at most 32k). (default: 10)
---@field headroomPercent number? Room a compaction aims to leave below the threshold, as a share of the context window; after an automatic compaction that could not make room, the next waits until the context has grown by about this much. (default: 20)

---@class compact_lsp.SessionNotesSettings
---@field enabled boolean? Keep background session notes so a compaction can use them at once, without waiting for a model. (default: true)
---@field useModel boolean? Write the session notes with the model when an API key is set (otherwise the offline extractor writes them). (default: true)
---@field firstAfterTokens integer? First session notes once the session has this many tokens. (default: 10000)
---@field everyTokens integer? Update the notes after this many more tokens (and the minimum number of tool calls). (default: 5000)
---@field minToolCalls integer? Tool calls needed since the last notes before they are updated again. (default: 3)

---@class compact_lsp.AgentSettings
---@field maxTokens integer? Chat agent: output budget of each model response. (default: 8192)
---@field maxRounds integer? Chat agent: model calls in one turn before it stops with max_rounds. (default: 50)
---@field shell boolean? Chat agent: offer the run_shell_command tool (each command still asks for permission). (default: false)
---@field maxRetries integer? Chat agent: retries of a failed API request (429, 5xx, connection errors). (default: 2)
---@field timeout number? Chat agent: seconds per API request. (default: 600)

---@class compact_lsp.ClaudeCodeSettings
---@field follow boolean? Follow the workspace's Claude Code transcripts as read-only sessions, read from where they stopped as Claude Code appends (unset: when its project directory exists or once it appears).
---@field projectsDir string? Claude Code's projects directory (unset: ~/.claude/projects).

---@class compact_lsp.CodexSettings
---@field follow boolean? Follow the workspace's Codex CLI sessions as read-only sessions, read from where they stopped as Codex appends (unset: when Codex's sessions folder exists).
---@field home string? Codex's home (unset: $CODEX_HOME, else ~/.codex); its sessions are in sessions/ below it.

---@class compact_lsp.QwenCodeSettings
---@field follow boolean? Follow the workspace's Qwen Code sessions as read-only sessions, read from where they stopped as Qwen appends (unset: when the project's ~/.qwen/projects/<workspace>/chats folder exists or once it appears).
---@field home string? Qwen Code's own folder (unset: $QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen); its sessions are in projects/<workspace>/chats/ below it.

---@class compact_lsp.GeminiCliSettings
---@field follow boolean? Follow the workspace's Gemini CLI sessions as read-only sessions, read again as Gemini writes them (unset: when the project's ~/.gemini/tmp/<project>/chats folder exists or once it appears).
---@field home string? The folder that holds Gemini CLI's .gemini (unset: the home directory).
