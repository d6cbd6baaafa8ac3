"""What installing a hook into an agent's settings file takes, whichever the agent: reading the file safely, the
one error a file we will not change raises, and what a change reports (agents/<name>/settings.py write them)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class SettingsFileError(Exception):
    """The settings file cannot be changed safely (not JSON or TOML, unexpected shapes, a link); left as it is."""


@dataclass(frozen=True)
class HookChange:
    """What an install or uninstall did (a docstring of its own: dataclasses would import inspect to make one)."""

    path: Path
    changed: bool
    backup: Path | None
    message: str


def read_settings_text(path: Path, max_bytes: int) -> str | None:
    """A small settings file's UTF-8 text (None: there is none), opened without following a link at its last
    component and checked to be a regular file of at most ``max_bytes``; anything else raises ``SettingsFileError``."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if path.is_symlink():
            raise SettingsFileError(f"{path} is a symbolic link; left as it is") from None
        raise exc
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise SettingsFileError(f"{path} is not a regular file; left as it is")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise SettingsFileError(f"{path} is over {max_bytes} bytes; left as it is")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SettingsFileError(f"{path} is not UTF-8 text; fix it or move it away, then try again") from None


def load_json_object(path: Path, text: str | None) -> dict[str, Any]:
    """A JSON settings file's object (``{}`` when there is none or it is empty); anything else raises."""
    if text is None:
        return {}
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise SettingsFileError(f"{path} is not valid JSON ({exc}); fix it or move it away, then try again") from None
    if not isinstance(data, dict):
        raise SettingsFileError(f"{path} holds a JSON {type(data).__name__}, not an object; left as it is")
    return data


def hook_entries(data: dict[str, Any], path: Path, event: str) -> list[Any]:
    """The ``hooks.<event>`` list of a JSON settings object (empty when absent), left unchanged; a shape we do not
    know raises."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsFileError(f"{path}: 'hooks' is not an object; left as it is")
    entries = hooks.get(event, [])
    if not isinstance(entries, list):
        raise SettingsFileError(f"{path}: 'hooks.{event}' is not a list; left as it is")
    return entries


def without_ours(entries: list[Any], is_ours: Callable[[Any], bool]) -> list[Any]:
    """Every matcher entry with our hook taken out; an entry left with no hooks goes too."""
    kept: list[Any] = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            others = [h for h in entry["hooks"] if not is_ours(h)]
            if not others and entry["hooks"]:
                continue
            entry = {**entry, "hooks": others}
        kept.append(entry)
    return kept
