"""Install and remove our ``SessionStart`` hook in Claude Code's settings files.

Claude Code reads hooks from ``.claude/settings.local.json`` (this project, not committed), ``.claude/
settings.json`` (this project, shared) and ``~/.claude/settings.json`` (the user). A hook lives under
``hooks.SessionStart`` as ``{"matcher": "compact", "hooks": [{"type": "command", "command": ...}]}``.

Installing is idempotent (our entry is replaced, never doubled), keeps every other hook and setting, backs the
file up beside it (``<name>.bak``, written from the bytes read, never a copy of whatever a link points at) before
the first change, and writes atomically (a temporary file, fsync, rename). The file keeps its layout (indentation,
tabs, line ends, byte-order mark, non-ASCII unescaped). Uninstalling gives back the file as it was before us, byte
for byte, when nothing else changed since (the backup's bytes; the backup never holds our installed version), and
removes a file install made; otherwise only our entry goes. A file that is not a JSON object is
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
    """The settings object; a byte-order mark is kept by the writer (``_layout``), not read as JSON."""
    return load_json_object(path, text.removeprefix(BOM) if text is not None else None)


def _without_ours(entries: list[Any]) -> list[Any]:
    return without_ours(entries, is_ours)


BOM = "\ufeff"


def _layout(original: str | None) -> tuple[str, str, str, bool]:
    """How the file is written, so that our edit changes only our entry: (byte-order mark, indent, line end,
    ends with a line end). A new file: two spaces, LF."""
    if original is None:
        return "", "  ", "\n", True
    bom = BOM if original.startswith(BOM) else ""
    end = "\r\n" if "\r\n" in original else "\n"
    indent = "  "
    for line in original.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            indent = line[: len(line) - len(stripped)]
            break
    return bom, indent, end, original.endswith(("\n", "\r"))


def _text(data: dict[str, Any], original: str | None) -> str:
    """``data`` as JSON in the original's layout: its indentation (tabs or spaces), line ends, byte-order mark,
    final line end, and non-ASCII as itself, not escaped."""
    bom, indent, end, final = _layout(original)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return bom + text.replace("\n", end) + (end if final else "")


def _backup_path(path: Path) -> Path:
    backup = path.with_name(path.name + ".bak")
    if backup.is_symlink():
        raise SettingsFileError(f"{backup} is a symbolic link; left as it is")
    return backup


def _write(path: Path, data: dict[str, Any], original: str | None) -> Path | None:
    """Write ``data`` over ``path``, backing up the original first when it holds none of ours (a backup is the
    file as it was before us: never one with our hook in it)."""
    backup = None
    if original is not None:
        backup = _backup_path(path)
        if not installed_in(_load(path, original)):
            replace_file(str(backup), original)
        elif not backup.exists():
            backup = None
    replace_file(str(path), _text(data, original))
    return backup


def installed_in(data: dict[str, Any]) -> bool:
    hooks = data.get("hooks")
    entries = hooks.get(EVENT) if isinstance(hooks, dict) else None
    return isinstance(entries, list) and entries != _without_ours(entries)


def _bare(data: Any) -> Any:
    """Settings compared as Claude Code reads them: an empty ``hooks`` or hook list is no hooks."""
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return data
    hooks = {k: v for k, v in data["hooks"].items() if v != []}
    rest = {k: v for k, v in data.items() if k != "hooks"}
    return {**rest, "hooks": hooks} if hooks else rest


def install_hook(path: Path, command: str | None = None, *, project_dir: str | None = None) -> HookChange:
    """Merge our hook into ``path``; ``project_dir``: a project's settings (links and escapes refused)."""
    if project_dir is not None:
        check_project_path(path, project_dir)
    original = _read_original(path)
    data = _load(path, original)
    entries = hook_entries(data, path, EVENT)
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
    data.setdefault("hooks", {})[EVENT] = wanted
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
    backup = _backup_path(path)
    before = _before_us(backup)
    earlier = _load(backup, before) if before is not None else None
    done = f"removed the compact-lsp hook from {path}"
    if earlier is not None and _bare(earlier) == _bare(data):
        # what install changed and nothing else: the file as it was, byte for byte (the backup is left as it is:
        # never the installed version)
        replace_file(str(path), before or "")
        return HookChange(path, True, backup, done)
    if not hooks and not (earlier is not None and "hooks" in earlier):
        del data["hooks"]
    if not data and before is None:  # install made the file: it goes again
        path.unlink()
        return HookChange(path, True, None, f"{done}, and the file, which install had made")
    replace_file(str(path), _text(data, original))
    return HookChange(path, True, backup if before is not None else None, done)


def _before_us(backup: Path) -> str | None:
    """The file as it was before our hook (the backup install made), when there is one to read."""
    try:
        return read_settings_text(backup, MAX_SETTINGS_BYTES)
    except (SettingsFileError, OSError):
        return None
