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

from compact_lsp.engine.files.file_gate import AllowedRoots

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


def replace_file(path: str, text: str, *, encoding: str = "utf-8", roots: AllowedRoots | None = None) -> None:
    """Write ``text`` to ``path`` atomically (see the module doc); missing parent folders are created.

    The target's folder is opened once (``_open_folder``) and the temporary file is created, written, renamed and
    the folder fsynced relative to that descriptor, so a folder swapped for a link meanwhile cannot send the text
    elsewhere. With ``roots``, the folder is reached from the root holding it one component at a time, never
    through a link, and nothing is created outside it. Raises ``WriteFailed`` naming the cause (``No space left on
    device``, ``File too large``, a folder that changed while it was opened, ...).
    """
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError as exc:  # a lone surrogate from a JSON "\ud800": refuse before touching anything
        raise WriteFailed(errno.EINVAL, f"could not write {path}: the text is not valid Unicode ({exc.reason}); "
                          "the file is unchanged") from None  # fmt: skip
    name = os.path.basename(path)
    try:
        folder = _open_folder(os.path.dirname(path) or ".", roots)
    except OSError as exc:
        raise WriteFailed(exc.errno, f"could not write {path}: {exc.strerror or exc}; the file is unchanged") from exc
    try:
        _replace_in(folder, name, data)
    except OSError as exc:
        raise WriteFailed(exc.errno, f"could not write {path}: {exc.strerror or exc}; the file is unchanged") from exc
    finally:
        os.close(folder)


_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _open_folder(directory: str, roots: AllowedRoots | None) -> int:
    """A descriptor of ``directory``, created if missing; with ``roots``, walked down from the root holding it
    without following any link (a link on the way is refused with ``ELOOP``/``ENOTDIR``)."""
    if roots is None:
        os.makedirs(directory, exist_ok=True)
        return os.open(directory, _DIRECTORY_FLAGS)
    absolute = os.path.normpath(os.path.abspath(directory))
    root = roots.root_of(absolute)
    if root is None:
        raise OSError(errno.EACCES, f"{directory} is outside the allowed folders")
    fd = os.open(root, _DIRECTORY_FLAGS)
    try:
        for part in os.path.relpath(absolute, root).split(os.sep):
            if part in ("", "."):
                continue
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            inner = os.open(part, _DIRECTORY_FLAGS | _NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _replace_in(folder: int, name: str, data: bytes) -> None:
    """The temporary file beside ``name``, written, fsynced, given the mode and renamed over it, all relative to
    the ``folder`` descriptor; removed again when anything fails."""
    try:
        mode = stat.S_IMODE(os.stat(name, dir_fd=folder).st_mode)
    except FileNotFoundError:
        mode = DEFAULT_FILE_MODE & ~_umask()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    temporary = f".{name}.{os.urandom(6).hex()}.tmp"  # not secrets: its hashlib would load in every hook
    fd = os.open(temporary, flags, 0o600, dir_fd=folder)
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
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    with contextlib.suppress(OSError):
        os.fsync(folder)
