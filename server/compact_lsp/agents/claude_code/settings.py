"""Install and remove our ``SessionStart`` hook in Claude Code's settings files.

Claude Code reads hooks from ``.claude/settings.local.json`` (this project, not committed), ``.claude/
settings.json`` (this project, shared) and ``~/.claude/settings.json`` (the user). A hook lives under
``hooks.SessionStart`` as ``{"matcher": "compact", "hooks": [{"type": "command", "command": ...}]}``.

Installing is idempotent (our entry is replaced, never doubled), keeps every other hook and setting, backs the
file up beside it (``<name>.bak``, written from the bytes read, never a copy of whatever a link points at) before
the first change, and writes atomically (a temporary file, fsync, rename). A file that is not a JSON object is
left alone with a clear error. In a project, a ``.claude`` folder or settings file that is a symbolic link, or
that resolves outside the project, is refused (a repository can commit either to make us write elsewhere).

The command installed is the launcher (``hook_launcher``), checked by running it once first.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from compact_lsp.agents.settings_files import HookChange, SettingsFileError, read_settings_text
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import replace_file

EVENT = "SessionStart"
MATCHER = "compact"
HOOK_ARGS = ("claude-code", "hook")
TIMEOUT_SECONDS = 30
_MARKERS = (
    "compact_lsp claude-code hook",
    "compact-lsp claude-code hook",
    "compact-lsp/claude-code-hook",
    "compact-lsp/launchers/claude-code-hook-",
)
MAX_SETTINGS_BYTES = 1 << 20
"""How our own entry is recognised in a settings file, whichever way it was started."""


def settings_path(scope: str, project_dir: str) -> Path:
    """``project``: the project's own, uncommitted ``.claude/settings.local.json``; ``user``: ``~/.claude``."""
    if scope == "user":
        return Path(os.path.expanduser("~")) / ".claude" / "settings.json"
    return Path(project_dir) / ".claude" / "settings.local.json"


def hook_command() -> str:
    """This interpreter with ``-m compact_lsp`` (a launcher is what ``install_hook`` installs by default)."""
    return " ".join([shlex.quote(sys.executable), "-m", "compact_lsp", *HOOK_ARGS])


def check_project_path(path: Path, project_dir: str) -> None:
    """Refuse a project's ``.claude`` or settings file that is a symlink or resolves outside the project."""
    for part in (path.parent, path):
        if part.is_symlink():
            raise SettingsFileError(
                f"{part} is a symbolic link; compact-lsp does not write Claude Code settings through a link "
                "(a repository may commit one). Replace it with a real file or folder, then try again"
            )
    real_project = real_path(project_dir)
    real = real_path(str(path))
    if os.path.commonpath([real, real_project]) != real_project:
        raise SettingsFileError(f"{path} resolves to {real}, outside the project {project_dir}; left as it is")


def _read_original(path: Path) -> str | None:
    """The settings file's text (None: there is none), without following a link at its last component."""
    return read_settings_text(path, MAX_SETTINGS_BYTES)


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in _MARKERS)


def _load(path: Path, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        data = json.loads(text or "{}")
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
        if backup.is_symlink():
            raise SettingsFileError(f"{backup} is a symbolic link; left as it is")
        replace_file(str(backup), original)
    replace_file(str(path), json.dumps(data, indent=2) + "\n")
    return backup


def install_hook(path: Path, command: str | None = None, *, project_dir: str | None = None) -> HookChange:
    """Merge our hook into ``path``; ``project_dir``: a project's settings (links and escapes refused)."""
    if project_dir is not None:
        check_project_path(path, project_dir)
    original = _read_original(path)
    data = _load(path, original)
    entries = _entries(data, path)
    if command is None:
        from compact_lsp.agents.hook_launcher import LauncherError, launcher_command

        try:
            command = launcher_command()
        except LauncherError as exc:
            raise SettingsFileError(str(exc)) from None
    ours = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    wanted = [*_without_ours(entries), {"matcher": MATCHER, "hooks": [ours]}]
    if wanted == entries:
        return HookChange(path, False, None, f"the hook is already installed in {path}")
    data["hooks"][EVENT] = wanted
    backup = _write(path, data, original)
    return HookChange(path, True, backup, f"installed the compact-lsp hook in {path}")


def installed_commands(path: Path) -> list[str]:
    """The commands of our hook in a settings file (none when it is missing or not ours to read)."""
    try:
        data = _load(path, _read_original(path))
    except (SettingsFileError, OSError):
        return []
    hooks = data.get("hooks")
    entries = hooks.get(EVENT) if isinstance(hooks, dict) else None
    found: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        found += [str(h["command"]) for h in inner if is_ours(h)] if isinstance(inner, list) else []
    return found


def uninstall_hook(path: Path, *, project_dir: str | None = None) -> HookChange:
    if project_dir is not None:
        check_project_path(path, project_dir)
    original = _read_original(path)
    if original is None:
        return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
    data = _load(path, original)
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
