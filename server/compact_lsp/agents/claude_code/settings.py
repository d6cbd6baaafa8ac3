"""Where our ``SessionStart`` hook goes in Claude Code's settings (the file handling: agents/json_settings.py).

Claude Code reads hooks from ``.claude/settings.local.json`` (this project, not committed), ``.claude/
settings.json`` (this project, shared) and ``~/.claude/settings.json`` (the user). We install into the first (the
default) or the last: ``hooks.SessionStart: [{"matcher": "compact", "hooks": [{"type": "command", "command": ...,
"timeout": 30}]}]``.
"""

from __future__ import annotations

from compact_lsp.agents.json_settings import JsonHookFile

SETTINGS = JsonHookFile(
    agent="claude-code", owner="Claude Code", folder=".claude", project_file="settings.local.json",
    event="SessionStart", matcher="compact", timeout=30,
)  # fmt: skip

install_hook = SETTINGS.install_hook
uninstall_hook = SETTINGS.uninstall_hook
installed_commands = SETTINGS.installed_commands
