"""Where our ``SessionStart`` hook goes in Qwen Code's settings (the file handling: agents/json_settings.py).

Qwen Code 0.24.4 reads hooks from ``~/.qwen/settings.json`` (the user) and the project's ``.qwen/settings.json``;
both run headless with no trust prompt. Ours is ``hooks.SessionStart: [{"matcher": "compact|resume", "hooks":
[{"type": "command", "command": ...}]}]`` (no ``timeout``: Qwen's default applies). Qwen matches a ``|`` list entry
by entry against the source (its ``matchesHookPattern``), so the one entry runs after each compaction and when a
session is resumed (``qwen --continue``, ``--resume``); the hook answers a resumed session only when it was
compacted before (hook.py). Installs before the ``resume`` source had ``"matcher": "compact"``: ``doctor`` and
``install-hook`` say that a reinstall adds it.
"""

from __future__ import annotations

from compact_lsp.agents.json_settings import JsonHookFile

SETTINGS = JsonHookFile(
    agent="qwen-code", owner="Qwen Code", folder=".qwen", project_file="settings.json",
    event="SessionStart", matcher="compact|resume",
    installed_note="Qwen Code runs it after each compaction: after /compress its next request carries our context; "
    "after an automatic compaction Qwen does not wait for the hook, so the request after that one does. It runs it "
    "too when a session compacted before is resumed (qwen --continue), from its first request",
    update_note="it now runs on resuming too (qwen --continue, --resume), so a session compacted before gets our "
    "context back at once, not at its next compaction",
)  # fmt: skip
"""``installed_note``: measured on Qwen Code 0.24.4 (docs/qwen-code.md)."""

install_hook = SETTINGS.install_hook
uninstall_hook = SETTINGS.uninstall_hook
installed_commands = SETTINGS.installed_commands
