"""What installing a hook into an agent's settings file takes, whichever the agent: reading the file safely, the
one error a file we will not change raises, and what a change reports (agents/<name>/settings.py write them)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


class SettingsFileError(Exception):
    """The settings file cannot be changed safely (not JSON or TOML, unexpected shapes, a link); left as it is."""


@dataclass(frozen=True)
class HookChange:
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
