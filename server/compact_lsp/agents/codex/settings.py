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
The first change backs the file up beside it (``config.toml.bak``, the file as it was before us: never one with our
hook in it); the write is atomic. Uninstalling gives that file back byte for byte when nothing else changed since
(comments, CRLF, key order, blank lines, an empty table the user wrote), removes a file install made, and otherwise
takes out only our entry; it also takes out Codex's own trust entry for our hook (``hook_trust.py``). A file (or
its ``.codex`` folder) that is a symbolic link, or that resolves outside the folder it belongs to, is refused: a
repository could point it at a file of the user's elsewhere.

Codex runs a new or changed hook only after the user trusts it once (``/hooks`` in the Codex TUI); until then
``codex exec`` skips it silently. Every change says so (``TRUST_NOTE``).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT

from compact_lsp.agents.codex.config_places import config_path
from compact_lsp.agents.codex.hook_entries import (
    EVENT,
    already_there,
    drop_ours,
    expected,
    is_ours,
    ours_entry,
    replaced_in_place,
)
from compact_lsp.agents.codex.hook_trust import drop_trust, trust_keys, without_trailing_change
from compact_lsp.agents.settings_files import HookChange, SettingsFileError, read_settings_text
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import replace_file

MAX_CONFIG_BYTES = 4 << 20
TRUST_NOTE = (
    "Codex runs a new or changed hook only after you trust it: start Codex in this project, type /hooks and trust "
    "the compact-lsp hook (once; again after any change to it)."
)


def hook_command() -> str:
    """The launcher (``agents/hook_launcher.py``): this server's Python with the path it needs, wherever it was
    installed from (VS Code's bundled server too), checked by running it once; ``SettingsFileError`` if it fails."""
    from compact_lsp.agents.codex.launcher import launcher_tail
    from compact_lsp.agents.hook_launcher import LauncherError, launcher_command

    try:
        return launcher_command("codex", launcher_tail)
    except LauncherError as exc:
        raise SettingsFileError(str(exc)) from None


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


def _checked_text(path: Path, text: str, wanted: dict[str, Any], *, loose: bool = False) -> str:
    """``text``, once a strict parser (the stdlib's) reads it back as ``wanted`` (``loose``: up to the empty
    tables a removal keeps or drops); any other outcome refuses the change with nothing written (tomlkit can render
    some valid layouts of ``[hooks]`` into text no parser reads, or change what else the file says)."""
    try:
        after: dict[str, Any] | None = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        after = None
    if after is not None and loose:
        after, wanted = _pruned(after), _pruned(wanted)
    if after != wanted:
        raise SettingsFileError(
            f"compact-lsp cannot change the [hooks] of {path} as it is laid out without changing what else it says; "
            "nothing was changed. Add the hook by hand (docs/codex.md), or write hooks.SessionStart as "
            "[[hooks.SessionStart]] tables and try again"
        )
    return text


def _plain(text: str | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text or "")
    except tomllib.TOMLDecodeError:
        return {}


def _installed_text(path: Path, original: str | None, command: str) -> str | None:
    """The text install writes over ``original`` (None: ours is already there as it is)."""
    doc = _parse(path, original)
    entries = _entries(doc, path, create=True)
    if already_there(entries, command):
        return None
    if not replaced_in_place(entries, command):
        drop_ours(entries)
        entries.append(ours_entry(command, inline=not isinstance(entries, AoT)))
    text = tomlkit.dumps(doc).rstrip("\r\n") + "\n"
    if original is not None and "\r\n" in original:  # tomlkit writes what it adds with LF: the file's own ends
        text = re.sub(r"(?<!\r)\n", "\r\n", text)
    return _checked_text(path, text, expected(_plain(original), command))


def _holds_ours(path: Path, text: str | None) -> bool:
    try:
        entries = _entries(_parse(path, text), path, create=False)
    except SettingsFileError:
        return False
    return any(is_ours(h) for e in entries or [] if isinstance(e, dict) for h in e.get("hooks") or [])


def _backup_path(path: Path) -> Path:
    backup = path.with_name(path.name + ".bak")
    _check_not_linked(backup)
    return backup


def install_hook(path: Path, command: str | None = None) -> HookChange:
    original = _read(path)
    command = command or hook_command()
    text = _installed_text(path, original, command)
    if text is None:
        return HookChange(path, False, None, f"the hook is already installed in {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    if original is not None:  # the backup is the file as it was before us: never one with our hook in it
        backup = _backup_path(path)
        if not _holds_ours(path, original):
            replace_file(str(backup), original)
        elif not backup.exists():
            backup = None
    replace_file(str(path), text)
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


def uninstall_hook(path: Path, trust_config: Path | None = None) -> HookChange:
    """Take our hook out of ``path``, and Codex's trust entry for it out of ``trust_config`` (the user's
    ``config.toml``, where Codex records it, by default). The file is given back byte for byte as it was before
    install (its ``.bak``) when nothing else changed since; a file install made goes again."""
    original = _read(path)
    if original is None:
        return HookChange(path, False, None, f"nothing to remove: {path} does not exist")
    doc = _parse(path, original)
    entries = _entries(doc, path, create=False)
    commands = {str(h.get("command")) for e in entries or [] for h in e.get("hooks") or [] if is_ours(h)}
    if entries is None or not commands:
        return HookChange(path, False, None, f"nothing to remove: the hook is not in {path}")
    keys = trust_keys(path, entries, is_ours)
    user_config = trust_config or config_path("user", "")
    here = real_path(str(user_config)) == real_path(str(path))
    untrusted = here and drop_trust(doc, keys)
    change = _without_ours(path, doc, entries, original, keys, untrusted, commands)
    if not here and _drop_trust_in(user_config, keys):  # a project's hook: Codex trusted it in the user's file
        change = replace(change, message=f"{change.message}, and Codex's trust entry for it from {user_config}")
    elif untrusted:
        change = replace(change, message=f"{change.message}, and Codex's trust entry for it")
    return change


def _without_ours(
    path: Path, doc: tomlkit.TOMLDocument, entries: Any, original: str, keys: set[str], untrusted: bool,
    commands: set[str],
) -> HookChange:  # fmt: skip
    """Write ``path`` without our hook: the backup's bytes when the file is what install made of it (once Codex's
    trust entry is out), nothing when install made the file, else the file with only our entry taken out."""
    current = without_trailing_change(tomlkit.dumps(doc), original) if untrusted else original
    backup = _backup_path(path)
    before = _before_us(path, backup)
    done = f"removed the compact-lsp hook from {path}"
    if before is not None and any(_installed_text_or_none(path, before, c) == current for c in commands):
        replace_file(str(path), before)  # what install changed and nothing else: the file as it was
        return HookChange(path, True, backup, done)
    drop_ours(entries)
    _drop_emptied(doc, entries, _plain(before) if before is not None else {})
    text = without_trailing_change(tomlkit.dumps(doc), original)
    if before is None and not text.strip():  # install made the file: it goes again
        path.unlink()
        return HookChange(path, True, None, f"{done} and the file, which install had made")
    replace_file(str(path), _checked_text(path, text, _untrusted(expected(_plain(original), None), keys), loose=True))
    return HookChange(path, True, backup if before is not None else None, done)


def _installed_text_or_none(path: Path, original: str, command: str) -> str | None:
    try:
        return _installed_text(path, original, command)
    except SettingsFileError:
        return None


def _drop_emptied(doc: tomlkit.TOMLDocument, entries: Any, before: dict[str, Any]) -> None:
    """Take out the ``hooks.SessionStart`` and ``[hooks]`` our removal left empty, unless the file had them before
    install (an empty table the user wrote stays)."""
    hooks = doc["hooks"]
    had = before.get("hooks") if isinstance(before.get("hooks"), dict) else None
    if not entries and (had is None or EVENT not in had):
        del hooks[EVENT]
    if not hooks and had is None:
        del doc["hooks"]


def _untrusted(data: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    """Plain ``data`` without the trust entries of ``keys``."""
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if isinstance(state, dict):
        for key in keys:
            state.pop(key, None)
    return data


def _pruned(data: dict[str, Any]) -> dict[str, Any]:
    """Plain ``data`` without an empty ``hooks.state``, ``hooks.SessionStart`` or ``hooks``."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    kept = {k: v for k, v in hooks.items() if not (k in ("state", EVENT) and v in ({}, []))}
    rest = {k: v for k, v in data.items() if k != "hooks"}
    return {**rest, "hooks": kept} if kept else rest


def _before_us(path: Path, backup: Path) -> str | None:
    """The file as it was before our hook (the backup install made), when there is one to read."""
    try:
        text = read_settings_text(backup, MAX_CONFIG_BYTES)
    except (SettingsFileError, OSError):
        return None
    return None if text is None or _holds_ours(path, text) else text


def _drop_trust_in(config: Path, keys: set[str]) -> bool:
    """Take Codex's trust entries of ``keys`` out of another config file (the user's, for a project's hook)."""
    try:
        original = _read(config)
        if original is None:
            return False
        doc = _parse(config, original)
    except (SettingsFileError, OSError):
        return False
    if not drop_trust(doc, keys):
        return False
    text = without_trailing_change(tomlkit.dumps(doc), original)
    replace_file(str(config), _checked_text(config, text, _untrusted(_plain(original), keys), loose=True))
    return True
