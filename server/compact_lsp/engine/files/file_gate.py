"""The file gate: the one way the server re-reads a file on its own, whatever a repository put there.

Rehydrated files, skills, plan files, memory indexes and the watcher's change-notice diffs are re-read without
the model or the user asking, from paths that were fine when recorded but may have been swapped since (git
stores symlinks; a FIFO or a device can appear anywhere). Every such read goes through ``open_gated`` or
``read_gated``, which refuse, each with its own ``GateRefused``:

- a path whose realpath is not inside one of the ``AllowedRoots`` (``OutsideRoots``), checked again on the open
  descriptor (``/proc/self/fd``) so a symlink swapped in between the check and the open is caught too;
- anything but a regular file (``NotRegularFile``): the open is ``O_NONBLOCK`` and ``fstat`` decides, so a FIFO
  or a device never blocks a worker thread;
- a file over the size cap (``FileTooLarge``): nothing beyond the cap is ever read;
- a credential-class file (``CredentialFile``; the list is ``credential_files.py``), whatever the roots.

The allowed roots are a value (``AllowedRoots``) the caller builds from what it trusts: the workspace folders,
the managed-memory roots that passed their rule (``memory.ManagedMemory``), further folders the user configured,
and single files the user admitted (``admitted_files``), which admit that path exactly and nothing below it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from compact_lsp.engine.files.credential_files import is_credential_file
from compact_lsp.engine.files.usable_path import real_path, real_path_or_none

MAX_READ_BYTES = 10 * 1024 * 1024
"""The default cap: the same as ``compact/readFile``'s whole-file cap."""

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


class GateRefused(OSError):
    """The gate would not read this file; the text says why."""


class OutsideRoots(GateRefused):
    """The path resolves outside every allowed root."""


class NotRegularFile(GateRefused):
    """A directory, FIFO, socket or device."""


class FileTooLarge(GateRefused):
    """Over the size cap."""


class CredentialFile(GateRefused):
    """A credential-class file (``credential_files.py``): never re-read on the server's own, whatever the roots."""


def is_inside(path_real: str, root_real: str) -> bool:
    """``path_real`` is ``root_real`` or below it, by path components (never by string prefix)."""
    try:
        return os.path.commonpath([path_real, root_real]) == root_real
    except ValueError:  # different drives, or mixing absolute and relative
        return False


@dataclass(frozen=True)
class AllowedRoots:
    """Folders the server may read below, as realpaths (resolved once, when built); empty admits nothing."""

    paths: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    """Single files admitted by their exact realpath (never a folder, never what lies below a path)."""
    bindings: tuple[tuple[str, int, int], ...] = ()
    """(path, device, inode) of admitted files bound to the file they were when admitted: read only while the path
    holds no link at any component and opens that same file."""

    @classmethod
    def of(cls, *paths: str | None) -> AllowedRoots:
        return cls().plus(*paths)

    def plus(self, *paths: str | None) -> AllowedRoots:
        """These roots and ``paths`` (None and empty entries are skipped, duplicates dropped)."""
        out = list(self.paths)
        for path in paths:
            if path:
                real = real_path_or_none(os.path.expanduser(path))
                if real is not None and real not in out:
                    out.append(real)
        return AllowedRoots(tuple(out), self.files, self.bindings)

    def plus_files(self, *paths: str) -> AllowedRoots:
        """These roots and the single files ``paths`` (realpaths, admitted exactly)."""
        files = dict.fromkeys([*self.files, *(real_path(p) for p in paths if p)])
        return AllowedRoots(self.paths, tuple(files), self.bindings)

    def bound(self, identities: dict[str, tuple[int, int]]) -> AllowedRoots:
        """These roots, the admitted files among ``identities`` bound to their (device, inode)."""
        more = tuple((path, dev, ino) for path, (dev, ino) in identities.items())
        return AllowedRoots(self.paths, self.files, self.bindings + more)

    def binding_of(self, real: str) -> tuple[int, int] | None:
        return next(((dev, ino) for path, dev, ino in self.bindings if path == real), None)

    def root_of(self, real: str) -> str | None:
        """The innermost root ``real`` (a realpath) lies in (an admitted file: itself), or None."""
        if real in self.files:
            return real
        inside = [root for root in self.paths if is_inside(real, root)]
        return max(inside, key=len) if inside else None

    def admits(self, path: str) -> bool:
        """``path``'s realpath lies inside one of the roots."""
        real = real_path_or_none(path)
        return real is not None and self.root_of(real) is not None

    def __bool__(self) -> bool:
        return bool(self.paths or self.files)


def describe_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (for refusals)."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def opened_path(fd: int) -> str | None:
    """Where the open descriptor really points (Linux: ``/proc/self/fd``); None where that is not known."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def open_verified(real: str, roots: AllowedRoots, *, shown: str | None = None) -> tuple[int, os.stat_result]:
    """Open the resolved path ``real`` without following a last link (``O_NOFOLLOW``: swapped in since it was
    resolved, it is refused with ``ELOOP``) and without blocking, then check where the open descriptor really is
    (a folder on the way swapped for a link out is caught there): ``OutsideRoots`` unless inside ``roots``.
    Returns the descriptor (the caller closes it) and its ``fstat``."""
    fd = os.open(real, _OPEN_FLAGS | _NOFOLLOW)
    try:
        opened = opened_path(fd)
        if opened is not None and opened.startswith("/") and roots.root_of(opened) is None:
            raise OutsideRoots(f"{shown or real} was swapped for a link to {opened}, outside the allowed folders")
        return fd, os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def open_gated(
    path: str, roots: AllowedRoots, *, max_bytes: int | None = MAX_READ_BYTES, named_by_user: bool = False
) -> Iterator[BinaryIO]:
    """Open ``path`` for reading through the gate (see the module doc); ``max_bytes=None`` skips the size cap;
    ``named_by_user``: a file the user named (``open_regular``), which the credential rule does not cover.

    Raises ``GateRefused`` (an ``OSError``) or the ``OSError`` of the open itself (``FileNotFoundError``, ...).
    """
    real = real_path(path)
    if roots.root_of(real) is None:
        raise OutsideRoots(f"{path} resolves to {real}, outside the allowed folders")
    if not named_by_user and is_credential_file(real):
        raise CredentialFile(f"{path} is a credential file; compact-lsp never re-reads one on its own")
    fd, st = open_verified(real, roots, shown=path)
    try:
        binding = roots.binding_of(real)
        if binding is not None and (binding != (st.st_dev, st.st_ino) or real != os.path.abspath(path)):
            raise OutsideRoots(f"{path} is no longer the file that was admitted (replaced, or reached through a link)")
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"{path} is {describe_kind(st.st_mode)}, not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise FileTooLarge(f"{path} is larger than {max_bytes // (1024 * 1024) or max_bytes} MiB")
        os.set_blocking(fd, True)  # a regular file: reads never wait anyway; keep buffered reads simple
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as f:
        yield f


@contextlib.contextmanager
def open_regular(path: str, *, max_bytes: int | None = None) -> Iterator[BinaryIO]:
    """A file the user named, wherever it is: ``open_gated`` with its own folder as the root, so only the
    regular-file check (never blocking on a FIFO or a device) and the size cap apply."""
    folder = AllowedRoots.of(os.path.dirname(real_path(path)))
    with open_gated(path, folder, max_bytes=max_bytes, named_by_user=True) as f:
        yield f


def read_gated(path: str, roots: AllowedRoots, *, max_bytes: int = MAX_READ_BYTES) -> bytes:
    """The whole file through the gate; ``FileTooLarge`` when it is over ``max_bytes`` (also if it grew)."""
    with open_gated(path, roots, max_bytes=max_bytes) as f:
        # what fstat promised plus one byte to notice growth, not a cap-sized buffer per file
        size = os.fstat(f.fileno()).st_size
        data = f.read(min(size, max_bytes) + 1)
        if len(data) > size:  # it grew since fstat: read on, still never past the cap
            data += f.read(max_bytes + 1 - len(data))
    if len(data) > max_bytes:
        raise FileTooLarge(f"{path} grew past {max_bytes // (1024 * 1024) or max_bytes} MiB while being read")
    return data


def gated_reader(roots: AllowedRoots, *, max_bytes: int = MAX_READ_BYTES) -> Callable[[str], bytes]:
    """A ``read_text`` callable for the engine's re-readers, bound to ``roots``."""

    def read(path: str) -> bytes:
        return read_gated(path, roots, max_bytes=max_bytes)

    return read


def gated_texts(roots: AllowedRoots) -> Callable[[str], str | None]:
    """Each file's text as read now through the gate, read once and remembered (None: it cannot be read); for the
    hooks, which ask about the same file several times while they decide."""
    read = gated_reader(roots)
    texts: dict[str, str | None] = {}

    def text_of(path: str) -> str | None:
        if path not in texts:
            try:
                texts[path] = read(path).decode("utf-8", errors="replace")
            except OSError:
                texts[path] = None
        return texts[path]

    return text_of
