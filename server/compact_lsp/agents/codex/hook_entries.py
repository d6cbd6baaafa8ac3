"""Our entry among Codex's ``hooks.SessionStart`` groups, in a tomlkit document and as plain data: how it is
recognised, added, replaced where it stands and taken out (agents/codex/settings.py reads and writes the file)."""

from __future__ import annotations

import copy
from typing import Any

import tomlkit

EVENT = "SessionStart"
MATCHER = "compact"
TIMEOUT_SECONDS = 30
_MARKERS = (
    "compact_lsp codex hook",
    "compact-lsp codex hook",
    "compact-lsp/codex-hook",
    "compact-lsp/launchers/codex-hook-",
)
"""How our own entry is recognised, whichever way it was started (the launcher is ``…/compact-lsp/codex-hook``)."""


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in _MARKERS)


def drop_ours(entries: Any) -> bool:
    """Take our hook out of every entry (an entry left with no hooks goes too); True when something went."""
    changed = False
    for index in reversed(range(len(entries))):
        entry = entries[index]
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if not isinstance(inner, list):
            continue
        others = [h for h in inner if not is_ours(h)]
        if len(others) == len(inner):
            continue
        changed = True
        if others:
            entry["hooks"] = others
        else:
            del entries[index]
    return changed


def expected(before: dict[str, Any], command: str | None) -> dict[str, Any]:
    """What the file should say after the change, as plain data: ``before`` with our hook's command replaced where
    it stands, or without our hook plus ours at the end when ``command`` (install), or with emptied tables dropped
    (uninstall)."""
    data = copy.deepcopy(before)
    hooks = data.setdefault("hooks", {})
    if command is not None and replaced_in_place(hooks.get(EVENT, []), command):
        return data
    entries = []
    for entry in hooks.get(EVENT, []):
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(inner, list) and any(is_ours(h) for h in inner):
            others = [h for h in inner if not is_ours(h)]
            if not others:
                continue
            entry = {**entry, "hooks": others}
        entries.append(entry)
    if command is not None:
        hook = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
        entries.append({"matcher": MATCHER, "hooks": [hook]})
    hooks[EVENT] = entries
    if command is None and not entries:
        del hooks[EVENT]
    if not hooks:
        del data["hooks"]
    return data


def replaced_in_place(entries: Any, command: str) -> bool:
    """A reinstall (a new launcher): our hook's command changed where it stands. Codex keys trust by position
    (``<file>:session_start:<group>:<hook>``), so moving ours to the end would shift every hook after it and Codex
    would ask the user to review those again. False when ours is not there to replace."""
    for group, entry in enumerate(entries):
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if entry.get("matcher") != MATCHER or not isinstance(inner, list):
            continue
        for hook in inner:
            if is_ours(hook):
                hook["command"] = command
                hook["timeout"] = TIMEOUT_SECONDS
                _drop_ours_after(entries, group, hook)
                return True
    return False


def _drop_ours_after(entries: Any, group: int, kept: Any) -> None:
    """Any other copy of our hook, after the one kept (an older install's duplicate)."""
    for index in reversed(range(group, len(entries))):
        inner = entries[index].get("hooks") if isinstance(entries[index], dict) else None
        if not isinstance(inner, list):
            continue
        others = [h for h in inner if h is kept or not is_ours(h)]
        if len(others) == len(inner):
            continue
        if others:
            entries[index]["hooks"] = others
        else:
            del entries[index]


def ours_entry(command: str, *, inline: bool = False) -> Any:
    if inline:  # an inline array (``SessionStart = [...]``) takes only inline tables
        hook_inline = tomlkit.inline_table()
        hook_inline.update({"type": "command", "command": command, "timeout": TIMEOUT_SECONDS})
        hooks_array = tomlkit.array()
        hooks_array.append(hook_inline)
        entry_inline = tomlkit.inline_table()
        entry_inline.update({"matcher": MATCHER, "hooks": hooks_array})
        return entry_inline
    entry = tomlkit.table()
    entry["matcher"] = MATCHER
    hook = tomlkit.table()
    hook.update({"type": "command", "command": command, "timeout": TIMEOUT_SECONDS})
    inner = tomlkit.aot()
    inner.append(hook)
    entry["hooks"] = inner
    return entry


def already_there(entries: Any, command: str) -> bool:
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        mine = isinstance(inner, list) and any(is_ours(h) and h.get("command") == command for h in inner)
        if entry.get("matcher") == MATCHER and mine:
            return True
    return False
