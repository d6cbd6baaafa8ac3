"""Install and remove our ``SessionStart`` hook in Claude Code's settings files.

Claude Code reads hooks from ``.claude/settings.local.json`` (this project, not committed), ``.claude/
settings.json`` (this project, shared) and ``~/.claude/settings.json`` (the user). A hook lives under
``hooks.SessionStart`` as ``{"matcher": "compact", "hooks": [{"type": "command", "command": ...}]}``.

Installing is idempotent (our entry is replaced, never doubled), keeps every other hook and setting, backs the
file up beside it (``<name>.bak``) before the first change, and writes atomically (a temporary file, fsync,
rename). A file that is not a JSON object is left alone with a clear error.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compact_lsp.atomic_files import replace_file

EVENT = "SessionStart"
MATCHER = "compact"
HOOK_ARGS = ("claude-code", "hook")
TIMEOUT_SECONDS = 30
_MARKERS = ("compact_lsp claude-code hook", "compact-lsp claude-code hook")
"""How our own entry is recognised in a settings file, whichever way it was started."""


class SettingsFileError(Exception):
    """The settings file cannot be changed safely (not JSON, not an object, unexpected shapes)."""


@dataclass(frozen=True)
class HookChange:
    path: Path
    changed: bool
    backup: Path | None
    message: str


def settings_path(scope: str, project_dir: str) -> Path:
    """``project``: the project's own, uncommitted ``.claude/settings.local.json``; ``user``: ``~/.claude``."""
    if scope == "user":
        return Path(os.path.expanduser("~")) / ".claude" / "settings.json"
    return Path(project_dir) / ".claude" / "settings.local.json"


def hook_command() -> str:
    """This interpreter with ``-m compact_lsp``: works whether or not ``compact-lsp`` is on Claude Code's PATH."""
    return " ".join([shlex.quote(sys.executable), "-m", "compact_lsp", *HOOK_ARGS])


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in _MARKERS)


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SettingsFileError(f"{path} is not valid JSON ({exc}); fix it or move it away, then try again") from None
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} holds a JSON {type(data).__name__}, not an object; left as it is")
    return data


def _entries(data: dict[str, Any], path: Path) -> list[Any]:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError(f"{path}: 'hooks' is not an object; left as it is")
    entries = hooks.setdefault(EVENT, [])
    if not isinstance(entries, list):
        raise SettingsFileError(f"{path}: 'hooks.{EVENT}' is not a list; left as it is")
    return entries


def _without_ours(entries: list[Any]) -> list[Any]:
    """Every entry with our hook taken out; an entry left with no hooks goes too."""
    kept: list[Any] = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            others = [h for h in entry["hooks"] if not is_ours(h)]
            if not others and entry["hooks"]:
                continue
            entry = {**entry, "hooks": others}
        kept.append(entry)
    return kept


def _write(path: Path, data: dict[str, Any], original: str | None) -> Path | None:
    backup = None
    if original is not None:
        backup = path.with_name(path.name + ".bak")
        shutil.copy2(path, backup)
    replace_file(str(path), json.dumps(data, indent=2) + "\n")
    return backup


def install_hook(path: Path, command: str | None = None) -> HookChange:
    original = path.read_text(encoding="utf-8") if path.exists() else None
    data = _load(path)
    entries = _entries(data, path)
    ours = {"type": "command", "command": command or hook_command(), "timeout": TIMEOUT_SECONDS}
    wanted = [*_without_ours(entries), {"matcher": MATCHER, "hooks": [ours]}]
    if wanted == entries:
        return HookChange(path, False, None, f"the hook is already installed in {path}")
    data["hooks"][EVENT] = wanted
    backup = _write(path, data, original)
    return HookChange(path, True, backup, f"installed the compact-lsp hook in {path}")


def uninstall_hook(path: Path) -> HookChange:
    if not path.exists():
        return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
    original = path.read_text(encoding="utf-8")
    data = _load(path)
    hooks = data.get("hooks")
    entries = hooks.get(EVENT) if isinstance(hooks, dict) else None
    if not isinstance(entries, list) or entries == (kept := _without_ours(entries)):
        return HookChange(path, False, None, f"nothing to remove: the hook is not in {path}")
    assert isinstance(hooks, dict)
    if kept:
        hooks[EVENT] = kept
    else:
        del hooks[EVENT]
        if not hooks:
            del data["hooks"]
    backup = _write(path, data, original)
    return HookChange(path, True, backup, f"removed the compact-lsp hook from {path}")
