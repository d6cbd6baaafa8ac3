"""Install and remove our ``SessionStart`` hook in Qwen Code's ``settings.json``.

Qwen Code 0.24.4 reads hooks from ``~/.qwen/settings.json`` (the user) and the project's ``.qwen/settings.json``;
both run headless with no trust prompt. Ours is ``hooks.SessionStart: [{"matcher": "compact", "hooks": [{"type":
"command", "command": ...}]}]`` (no ``timeout``: Qwen's default applies).

The file is read through the shared settings-file code (``settings_files.read_settings_text``: no link at its last
component, a regular file, bounded); a project's ``.qwen`` folder or file that is a link or resolves outside the
project is refused; every other setting and hook is kept; the first change backs the file up beside it
(``settings.json.bak``, from the bytes read) and the write is atomic. Removing our hook from a file that says
nothing else new since the install writes back the bytes it held before: the round trip is byte-identical.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from compact_lsp.agents.settings_files import (
    HookChange,
    SettingsFileError,
    hook_entries,
    load_json_object,
    read_settings_text,
    without_ours,
)
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import replace_file

EVENT = "SessionStart"
MATCHER = "compact"
_MARKERS = (
    "compact_lsp qwen-code hook",
    "compact-lsp qwen-code hook",
    "compact-lsp/qwen-code-hook",
    "compact-lsp/launchers/qwen-code-hook-",
)
"""How our own entry is recognised, whichever way it was started."""
MAX_SETTINGS_BYTES = 1 << 20


def settings_path(scope: str, project_dir: str) -> Path:
    """``project``: the project's ``.qwen/settings.json``; ``user``: ``~/.qwen/settings.json``."""
    if scope == "user":
        return Path(os.path.expanduser("~")) / ".qwen" / "settings.json"
    return Path(project_dir) / ".qwen" / "settings.json"


def hook_command() -> str:
    from compact_lsp.agents.hook_launcher import LauncherError, launcher_command

    try:
        return launcher_command("qwen-code")
    except LauncherError as exc:
        raise SettingsFileError(str(exc)) from None


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in _MARKERS)


def _check_project(path: Path, project_dir: str) -> None:
    for part in (path.parent, path):
        if part.is_symlink():
            raise SettingsFileError(
                f"{part} is a symbolic link; compact-lsp does not write Qwen Code settings through a link "
                "(a repository may commit one). Replace it with a real file or folder, then try again"
            )
    real_project = real_path(project_dir)
    real = real_path(str(path))
    if os.path.commonpath([real, real_project]) != real_project:
        raise SettingsFileError(f"{path} resolves to {real}, outside the project {project_dir}; left as it is")


_load = load_json_object


def _entries(data: dict[str, Any], path: Path) -> list[Any]:
    return hook_entries(data, path, EVENT)


def _without_ours(entries: list[Any]) -> list[Any]:
    return without_ours(entries, is_ours)


def _backup_path(path: Path) -> Path:
    backup = path.with_name(path.name + ".bak")
    if backup.is_symlink():
        raise SettingsFileError(f"{backup} is a symbolic link; left as it is")
    return backup


def install_hook(path: Path, command: str | None = None, *, project_dir: str | None = None) -> HookChange:
    if project_dir is not None:
        _check_project(path, project_dir)
    original = read_settings_text(path, MAX_SETTINGS_BYTES)
    data = _load(path, original)
    entries = _entries(data, path)
    ours = {"type": "command", "command": command or hook_command()}
    wanted = [*_without_ours(entries), {"matcher": MATCHER, "hooks": [ours]}]
    if wanted == entries:
        return HookChange(path, False, None, f"the hook is already installed in {path}")
    hooks = data.setdefault("hooks", {})
    hooks[EVENT] = wanted
    backup = None
    if original is not None:
        backup = _backup_path(path)
        replace_file(str(backup), original)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(str(path), json.dumps(data, indent=2) + "\n")
    return HookChange(path, True, backup, f"installed the compact-lsp hook in {path}")


def installed_commands(path: Path) -> list[str]:
    try:
        entries = _entries(_load(path, read_settings_text(path, MAX_SETTINGS_BYTES)), path)
    except (SettingsFileError, OSError):
        return []
    found: list[str] = []
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        found += [str(h["command"]) for h in inner if is_ours(h)] if isinstance(inner, list) else []
    return found


def uninstall_hook(path: Path, *, project_dir: str | None = None) -> HookChange:
    if project_dir is not None:
        _check_project(path, project_dir)
    original = read_settings_text(path, MAX_SETTINGS_BYTES)
    if original is None:
        return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
    data = _load(path, original)
    entries = _entries(data, path)
    kept = _without_ours(entries)
    if kept == entries:
        return HookChange(path, False, None, f"nothing to remove: the hook is not in {path}")
    hooks = data["hooks"]
    if kept:
        hooks[EVENT] = kept
    else:
        del hooks[EVENT]
        if not hooks:
            del data["hooks"]
    backup = _backup_path(path)
    before = _previous(backup)
    text = before if before is not None and _load(path, before) == data else json.dumps(data, indent=2) + "\n"
    replace_file(str(backup), original)
    replace_file(str(path), text)
    return HookChange(path, True, backup, f"removed the compact-lsp hook from {path}")


def _previous(backup: Path) -> str | None:
    """The backup's text when it is one we can read (what the file held before our install)."""
    try:
        return read_settings_text(backup, MAX_SETTINGS_BYTES)
    except (SettingsFileError, OSError):
        return None
