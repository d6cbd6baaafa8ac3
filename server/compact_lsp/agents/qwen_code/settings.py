"""Where our ``SessionStart`` hook goes in Qwen Code's settings (the file handling: agents/json_settings.py).

Qwen Code 0.24.4 reads hooks from ``~/.qwen/settings.json`` (the user) and the project's ``.qwen/settings.json``;
both run headless with no trust prompt. Ours is ``hooks.SessionStart: [{"matcher": "compact", "hooks": [{"type":
"command", "command": ...}]}]`` (no ``timeout``: Qwen's default applies).
"""

from __future__ import annotations

from compact_lsp.agents.json_settings import JsonHookFile

SETTINGS = JsonHookFile(
    agent="qwen-code", owner="Qwen Code", folder=".qwen", project_file="settings.json",
    event="SessionStart", matcher="compact",
    installed_note="Qwen Code runs it after each compaction: after /compress its next request carries our context; "
    "after an automatic compaction Qwen does not wait for the hook, so the request after that one does",
)  # fmt: skip
"""``installed_note``: measured on Qwen Code 0.24.4 (docs/qwen-code.md)."""

install_hook = SETTINGS.install_hook
uninstall_hook = SETTINGS.uninstall_hook
installed_commands = SETTINGS.installed_commands
