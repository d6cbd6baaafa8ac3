"""Our hook in an agent's JSON settings file (Claude Code, Qwen Code, and any agent whose settings say
``hooks.<event>: [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]``): one implementation, each agent
naming its folder, file and event (``JsonHookFile``).

Installing is idempotent (our entry is replaced, never doubled), keeps every other hook and setting, backs the
file up beside it (``<name>.bak``, written from the bytes read, never a copy of whatever a link points at) before
the first change, and writes atomically (a temporary file, fsync, rename). The file keeps its layout (indentation,
tabs, line ends, byte-order mark, non-ASCII unescaped). Uninstalling gives back the file as it was before us, byte
for byte, when nothing else changed since (the backup's bytes; the backup never holds our installed version), and
removes a file install made; otherwise only our entry goes. A file that is not a JSON object is left alone with a
clear error. In a project, the agent's folder or settings file that is a symbolic link, or that resolves outside the
project, is refused (a repository can commit either to make us write elsewhere).

The command installed is the agent's launcher (``hook_launcher``), checked by running it once first.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
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

MAX_SETTINGS_BYTES = 1 << 20
BOM = "\ufeff"


@dataclass(frozen=True)
class JsonHookFile:
    """One agent's JSON settings files and where our hook goes in them."""

    agent: str
    """The agent's word on our command line (``claude-code``): its launcher's and its entry's name."""
    owner: str
    """Its name in what we say (``Claude Code``)."""
    folder: str
    """Its settings folder, in the project and in home (``.claude``)."""
    project_file: str
    """The project's settings file in that folder (``settings.local.json``); home's is ``settings.json``."""
    event: str
    matcher: str | None
    """The entry's ``matcher`` (None: an entry without one)."""
    timeout: int | None = None
    """The hook's ``timeout`` in seconds (None: the agent's default)."""
    installed_note: str = ""
    """What the user is told after a change that installed the hook (when the agent runs it), or ``""``."""
    update_note: str = ""
    """What a reinstall adds to an entry of ours that an earlier version wrote with another ``matcher``
    (``install-hook`` says it when it updates one, ``doctor`` when it finds one), or ``""``."""

    def settings_path(self, scope: str, project_dir: str) -> Path:
        if scope == "user":
            return Path(os.path.expanduser("~")) / self.folder / "settings.json"
        return Path(project_dir) / self.folder / self.project_file

    def is_ours(self, hook: Any) -> bool:
        """Our own entry, whichever way it was started (``-m compact_lsp``, a script, a launcher)."""
        markers = (
            f"compact_lsp {self.agent} hook",
            f"compact-lsp {self.agent} hook",
            f"compact-lsp/{self.agent}-hook",
            f"compact-lsp/launchers/{self.agent}-hook-",
        )
        return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in markers)

    def install_hook(self, path: Path, command: str | None = None, *, project_dir: str | None = None) -> HookChange:
        """Merge our hook into ``path``; ``project_dir``: a project's settings (links and escapes refused)."""
        if project_dir is not None:
            self._check_project_path(path, project_dir)
        original = read_settings_text(path, MAX_SETTINGS_BYTES)
        data = _load(path, original)
        entries = hook_entries(data, path, self.event)
        if command is None:
            from compact_lsp.agents.hook_launcher import LauncherError, launcher_command

            try:
                command = launcher_command(self.agent)
            except LauncherError as exc:
                raise SettingsFileError(str(exc)) from None
        ours: dict[str, Any] = {"type": "command", "command": command}
        if self.timeout is not None:
            ours["timeout"] = self.timeout
        entry: dict[str, Any] = {"matcher": self.matcher} if self.matcher is not None else {}
        wanted = [*without_ours(entries, self.is_ours), {**entry, "hooks": [ours]}]
        if wanted == entries:
            return HookChange(path, False, None, f"the hook is already installed in {path}")
        earlier = self._earlier_in(data)
        data.setdefault("hooks", {})[self.event] = wanted
        backup = self._write(path, data, original)
        note = f". {self.installed_note}" if self.installed_note else ""
        if earlier:
            return HookChange(path, True, backup, f"updated the compact-lsp hook in {path}: {self.update_note}{note}")
        return HookChange(path, True, backup, f"installed the compact-lsp hook in {path}{note}")

    def installed_outdated(self, path: Path) -> str | None:
        """``update_note`` when our hook in ``path`` was written by an earlier version with another matcher."""
        try:
            data = _load(path, read_settings_text(path, MAX_SETTINGS_BYTES))
        except (SettingsFileError, OSError):
            return None
        return self.update_note if self._earlier_in(data) else None

    def installed_commands(self, path: Path) -> list[str]:
        """The commands of our hook in a settings file (none when it is missing or not ours to read)."""
        try:
            data = _load(path, read_settings_text(path, MAX_SETTINGS_BYTES))
        except (SettingsFileError, OSError):
            return []
        found: list[str] = []
        for entry in self._entries(data):
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            found += [str(h["command"]) for h in inner if self.is_ours(h)] if isinstance(inner, list) else []
        return found

    def uninstall_hook(self, path: Path, *, project_dir: str | None = None) -> HookChange:
        if project_dir is not None:
            self._check_project_path(path, project_dir)
        original = read_settings_text(path, MAX_SETTINGS_BYTES)
        if original is None:
            return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
        data = _load(path, original)
        hooks = data.get("hooks")
        entries = hooks.get(self.event) if isinstance(hooks, dict) else None
        if not isinstance(entries, list) or entries == (kept := without_ours(entries, self.is_ours)):
            return HookChange(path, False, None, f"nothing to remove: the hook is not in {path}")
        assert isinstance(hooks, dict)
        if kept:
            hooks[self.event] = kept
        else:
            del hooks[self.event]
        backup = _backup_path(path)
        before = _before_us(backup)
        earlier = _load(backup, before) if before is not None else None
        done = f"removed the compact-lsp hook from {path}"
        if earlier is not None and _bare(earlier) == _bare(data):
            # what install changed and nothing else: the file as it was, byte for byte (the backup is left as it
            # is: never the installed version)
            replace_file(str(path), before or "")
            return HookChange(path, True, backup, done)
        if not hooks and not (earlier is not None and "hooks" in earlier):
            del data["hooks"]
        if not data and before is None:  # install made the file: it goes again
            path.unlink()
            return HookChange(path, True, None, f"{done}, and the file, which install had made")
        replace_file(str(path), _text(data, original))
        return HookChange(path, True, backup if before is not None else None, done)

    def _entries(self, data: dict[str, Any]) -> list[Any]:
        hooks = data.get("hooks")
        entries = hooks.get(self.event) if isinstance(hooks, dict) else None
        return entries if isinstance(entries, list) else []

    def _earlier_in(self, data: dict[str, Any]) -> bool:
        """An entry of ours with a matcher other than ours now (an earlier version's), when there is news to say."""
        return bool(self.update_note) and any(
            isinstance(e, dict) and e.get("matcher") != self.matcher and isinstance(inner := e.get("hooks"), list)
            and any(self.is_ours(h) for h in inner)
            for e in self._entries(data)
        )  # fmt: skip

    def _installed_in(self, data: dict[str, Any]) -> bool:
        entries = self._entries(data)
        return entries != without_ours(entries, self.is_ours)

    def _check_project_path(self, path: Path, project_dir: str) -> None:
        """Refuse a project's settings folder or file that is a symbolic link or resolves outside the project."""
        for part in (path.parent, path):
            if part.is_symlink():
                raise SettingsFileError(
                    f"{part} is a symbolic link; compact-lsp does not write {self.owner} settings through a link "
                    "(a repository may commit one). Replace it with a real file or folder, then try again"
                )
        real_project = real_path(project_dir)
        real = real_path(str(path))
        if os.path.commonpath([real, real_project]) != real_project:
            raise SettingsFileError(f"{path} resolves to {real}, outside the project {project_dir}; left as it is")

    def _write(self, path: Path, data: dict[str, Any], original: str | None) -> Path | None:
        """Write ``data`` over ``path``, backing up the original first when it holds none of ours (a backup is the
        file as it was before us: never one with our hook in it)."""
        backup = None
        if original is not None:
            backup = _backup_path(path)
            if not self._installed_in(_load(path, original)):
                replace_file(str(backup), original)
            elif not backup.exists():
                backup = None
        replace_file(str(path), _text(data, original))
        return backup


def _load(path: Path, text: str | None) -> dict[str, Any]:
    """The settings object; a byte-order mark is kept by the writer (``_layout``), not read as JSON."""
    return load_json_object(path, text.removeprefix(BOM) if text is not None else None)


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


def _bare(data: Any) -> Any:
    """Settings compared as the agent reads them: an empty ``hooks`` or hook list is no hooks."""
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return data
    hooks = {k: v for k, v in data["hooks"].items() if v != []}
    rest = {k: v for k, v in data.items() if k != "hooks"}
    return {**rest, "hooks": hooks} if hooks else rest


def _before_us(backup: Path) -> str | None:
    """The file as it was before our hook (the backup install made), when there is one to read."""
    try:
        return read_settings_text(backup, MAX_SETTINGS_BYTES)
    except (SettingsFileError, OSError):
        return None
