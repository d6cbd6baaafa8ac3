"""One writer per session across processes: an OS file lock beside each session file.

Two editor windows on one folder start two servers over the same session directory. If both appended to one
journal, its lines would interleave into a conversation the API rejects. So a server takes ``<id>.lock`` (an
exclusive ``flock``, released by the OS when the process ends, however it ends) before its first write to a
session and keeps it while it runs; the lock file names the holder (pid, host, since when). A second server
that finds the lock taken refuses writes with ``SessionBusy``, naming that process, and follows the session
read-only instead (lsp/work/journal_follow.py). Where ``fcntl`` does not exist (Windows) there is no lock.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"


class SessionBusy(RuntimeError):
    """Another server holds the session's write lock; ``owner`` is what it wrote in the lock file."""

    def __init__(self, session: str, owner: dict[str, Any]) -> None:
        self.session = session
        self.owner = owner
        pid = owner.get("pid")
        who = f"process {pid}" if pid else "another process"
        if owner.get("host") and owner.get("host") != socket.gethostname():
            who += f" on {owner['host']}"
        super().__init__(
            f"session {session} is open for writing in another compact-lsp server ({who}); this one only follows "
            "it. Continue in that window, or start a new session here (compact/newSession)."
        )


class LockUnusable(RuntimeError):
    """Something that is not a lock file where a session's lock file belongs; the text names it and the fix."""


def lock_path(session_file: Path) -> Path:
    return session_file.with_name(session_file.name.removesuffix(".jsonl") + LOCK_SUFFIX)


class WriterLock:
    """The write lock of one session file (see the module docstring)."""

    def __init__(self, session_file: Path) -> None:
        self.path = lock_path(session_file)
        self.session = session_file.name.removesuffix(".jsonl")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """This process holds it."""
        return self._fd is not None or fcntl is None

    def acquire(self) -> None:
        """Take the lock (at once or never: ``SessionBusy`` names the holder); a no-op once held."""
        if self.held:
            return
        # O_NONBLOCK: a FIFO there must not block the open; the checks below refuse it before anything is written.
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:  # a directory, a link, a file we may not open where the lock belongs
            raise self._unusable(exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
        except OSError as exc:
            os.close(fd)
            raise self._unusable(exc.strerror or str(exc)) from None
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            # a FIFO, a device, or a hard link to someone's file: writing the owner there would truncate it
            os.close(fd)
            raise self._unusable(
                "not a regular file" if not stat.S_ISREG(info.st_mode) else "a hard link to another file"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            owner = _read_owner(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise SessionBusy(self.session, owner) from None
            raise
        owner = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(owner).encode(), 0)
        self._fd = fd

    def _unusable(self, why: str) -> LockUnusable:
        return LockUnusable(
            f"compact-lsp cannot lock session {self.session}: {self.path} cannot be opened as its lock file ({why}). "
            f"Remove or rename {self.path} (compact-lsp makes it again), then try again; nothing was changed"
        )

    def holder(self) -> dict[str, Any] | None:
        """Who holds the lock when another process does; None when it is free or ours."""
        if self.held:
            return None
        try:
            fd = os.open(
                self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
            )
        except OSError:
            return None
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            regular = False
        if not regular:
            os.close(fd)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _read_owner(fd)
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the flock
            self._fd = None


def _read_owner(fd: int) -> dict[str, Any]:
    try:
        owner = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return owner if isinstance(owner, dict) else {}
