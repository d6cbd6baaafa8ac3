"""The agent's writes to user files: all or nothing, whatever the disk or the process does meanwhile.

``replace_file`` writes the new text to a temporary file in the target's own folder (so the rename cannot cross
file systems), ``fsync``s it, gives it the target's permission bits (a new file gets the usual ``0666 & ~umask``,
not ``mkstemp``'s ``0600``), renames it over the target and ``fsync``s the folder. A full disk, a file-size
limit or a crash at any point leaves either the old file, whole, or the new one, whole; never a truncated mix.
The temporary file is removed when the write fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile

DEFAULT_FILE_MODE = 0o666


class WriteFailed(OSError):
    """The new text could not be written; the target was left exactly as it was."""


def _umask() -> int:
    """The process umask, read without changing it where the system says it (Linux), as other threads create files."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_directory(directory: str) -> None:
    """Make a rename or a new file in ``directory`` durable (where the platform lets a directory be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # not every platform or file system lets a directory be opened; the rename is done anyway
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replace_file(path: str, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see the module doc); missing parent folders are created.

    Raises ``WriteFailed`` naming the cause (``No space left on device``, ``File too large``, ...).
    """
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = DEFAULT_FILE_MODE & ~_umask()
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as exc:  # a lone surrogate from a JSON "\ud800": refuse before touching anything
        raise WriteFailed(errno.EINVAL, f"could not write {path}: the text is not valid Unicode ({exc.reason}); "
                          "the file is unchanged") from None  # fmt: skip
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise WriteFailed(exc.errno, f"could not write {path}: {exc.strerror or exc}; the file is unchanged") from exc
    fsync_directory(directory)
