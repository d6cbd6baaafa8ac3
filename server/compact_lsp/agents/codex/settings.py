"""Install and remove our ``SessionStart`` hook in Codex CLI's ``config.toml``.

Codex reads hooks from ``$CODEX_HOME/config.toml`` (the user's; ``~/.codex`` by default) and from a trusted
project's ``.codex/config.toml``. Ours is::

    [[hooks.SessionStart]]
    matcher = "compact"
    [[hooks.SessionStart.hooks]]
    type = "command"
    command = "... -m compact_lsp codex hook"

The file is edited with tomlkit, so every other table, comment and layout is kept; our entry is replaced, never
doubled. Before anything is written the new text is read back by a strict parser and compared with the intended
change (``_checked_text``): a layout of ``[hooks]`` that cannot be edited cleanly is refused with nothing changed.
The first change backs the file up beside it (``config.toml.bak``, written by us from what we read); the write is
atomic. A file (or its ``.codex`` folder) that is a symbolic link, or that resolves outside the
folder it belongs to, is refused: a repository could point it at a file of the user's elsewhere.

Codex runs a new or changed hook only after the user trusts it once (``/hooks`` in the Codex TUI); until then
``codex exec`` skips it silently. Every change says so (``TRUST_NOTE``).
"""

from __future__ import annotations

import copy
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT

from compact_lsp.agents.settings_files import HookChange, SettingsFileError, read_settings_text
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import replace_file

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
MAX_CONFIG_BYTES = 4 << 20
TRUST_NOTE = (
    "Codex runs a new or changed hook only after you trust it: start Codex in this project, type /hooks and trust "
    "the compact-lsp hook (once; again after any change to it)."
)


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex"))


def config_path(scope: str, project_dir: str) -> Path:
    """``user``: ``$CODEX_HOME/config.toml``; ``project``: the project's ``.codex/config.toml``."""
    if scope == "user":
        return codex_home() / "config.toml"
    return Path(project_dir) / ".codex" / "config.toml"


def hook_command() -> str:
    """The launcher (``agents/hook_launcher.py``): this server's Python with the path it needs, wherever it was
    installed from (VS Code's bundled server too), checked by running it once; ``SettingsFileError`` if it fails."""
    from compact_lsp.agents.hook_launcher import LauncherError, launcher_command

    try:
        return launcher_command("codex")
    except LauncherError as exc:
        raise SettingsFileError(str(exc)) from None


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(m in str(hook.get("command", "")) for m in _MARKERS)


def _check_not_linked(path: Path) -> None:
    """Refuse a config file or folder that is a link, or a file that is not a regular one."""
    for candidate in (path.parent, path):
        try:
            mode = os.lstat(candidate).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode):
            raise SettingsFileError(f"{candidate} is a symbolic link; compact-lsp does not write through links")
        if candidate == path and not stat.S_ISREG(mode):
            raise SettingsFileError(f"{candidate} is not a regular file; left as it is")
    real_parent = real_path(str(path.parent))
    if os.path.exists(path.parent) and real_parent != os.path.abspath(path.parent):
        raise SettingsFileError(f"{path.parent} resolves to {real_parent}; compact-lsp writes only where it was told")


def _read(path: Path) -> str | None:
    _check_not_linked(path)
    return read_settings_text(path, MAX_CONFIG_BYTES)


def _parse(path: Path, text: str | None) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text or "")
    except TOMLKitError as exc:
        raise SettingsFileError(f"{path} is not valid TOML ({exc}); fix it or move it away, then try again") from None


def _entries(doc: tomlkit.TOMLDocument, path: Path, *, create: bool) -> Any:
    hooks = doc.get("hooks")
    if hooks is None:
        if not create:
            return None
        hooks = tomlkit.table(is_super_table=True)
        doc["hooks"] = hooks
    if not isinstance(hooks, dict):
        raise SettingsFileError(f"{path}: 'hooks' is not a table; left as it is")
    entries = hooks.get(EVENT)
    if entries is None:
        if not create:
            return None
        entries = tomlkit.aot()
        hooks[EVENT] = entries
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SettingsFileError(f"{path}: 'hooks.{EVENT}' is not an array of tables; left as it is")
    return entries


def _drop_ours(entries: Any) -> bool:
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


def _expected(before: dict[str, Any], command: str | None) -> dict[str, Any]:
    """What the file should say after the change, as plain data: ``before`` without our hook, plus ours when
    ``command`` (install), or with emptied tables dropped (uninstall)."""
    data = copy.deepcopy(before)
    hooks = data.setdefault("hooks", {})
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


def _checked_text(path: Path, doc: tomlkit.TOMLDocument, original: str | None, command: str | None) -> str:
    """The new file text, once a strict parser (the stdlib's) reads it back as exactly the intended change; any
    other outcome refuses the change with nothing written (tomlkit can render some valid layouts of ``[hooks]``
    into text no parser reads, or change what else the file says)."""
    text = tomlkit.dumps(doc).rstrip("\n") + "\n"
    try:
        after = tomllib.loads(text)
        wanted = _expected(tomllib.loads(original or ""), command)
    except tomllib.TOMLDecodeError:
        after, wanted = None, {}
    if after != wanted:
        raise SettingsFileError(
            f"compact-lsp cannot change the [hooks] of {path} as it is laid out without changing what else it says; "
            "nothing was changed. Add the hook by hand (docs/codex.md), or write hooks.SessionStart as "
            "[[hooks.SessionStart]] tables and try again"
        )
    return text


def _write(path: Path, doc: tomlkit.TOMLDocument, original: str | None, command: str | None) -> Path | None:
    text = _checked_text(path, doc, original, command)
    backup = None
    if original is not None:
        backup = path.with_name(path.name + ".bak")
        _check_not_linked(backup)
        replace_file(str(backup), original)
    replace_file(str(path), text)
    return backup


def _ours(command: str, *, inline: bool = False) -> Any:
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


def _already(entries: Any, command: str) -> bool:
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        mine = isinstance(inner, list) and any(is_ours(h) and h.get("command") == command for h in inner)
        if entry.get("matcher") == MATCHER and mine:
            return True
    return False


def install_hook(path: Path, command: str | None = None) -> HookChange:
    original = _read(path)
    command = command or hook_command()
    doc = _parse(path, original)
    entries = _entries(doc, path, create=True)
    if _already(entries, command):
        return HookChange(path, False, None, f"the hook is already installed in {path}")
    _drop_ours(entries)
    entries.append(_ours(command, inline=not isinstance(entries, AoT)))
    path.parent.mkdir(parents=True, exist_ok=True)
    backup = _write(path, doc, original, command)
    return HookChange(path, True, backup, f"installed the compact-lsp hook in {path}. {TRUST_NOTE}")


def installed_commands(path: Path) -> list[str]:
    """The commands of our hook in a config file (none when it is missing or not ours to read)."""
    try:
        entries = _entries(_parse(path, _read(path)), path, create=False)
    except (SettingsFileError, OSError):
        return []
    found: list[str] = []
    for entry in entries or []:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        found += [str(h["command"]) for h in inner if is_ours(h)] if isinstance(inner, list) else []
    return found


def uninstall_hook(path: Path) -> HookChange:
    original = _read(path)
    if original is None:
        return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
    doc = _parse(path, original)
    entries = _entries(doc, path, create=False)
    if entries is None or not _drop_ours(entries):
        return HookChange(path, False, None, f"nothing to remove: the hook is not in {path}")
    hooks = doc["hooks"]
    if not entries:
        del hooks[EVENT]
    if not hooks:
        del doc["hooks"]
    backup = _write(path, doc, original, None)
    return HookChange(path, True, backup, f"removed the compact-lsp hook from {path}")
