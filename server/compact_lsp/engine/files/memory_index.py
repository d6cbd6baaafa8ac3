"""A memory root's ``MEMORY.md`` index as the system prompt carries it: read capped, and kept while the file is the
same, so that measuring usage after every append costs a ``stat`` per root instead of realpaths and a read.

``IndexCache`` keeps each index with what identified the file when it was read, and trusts it only while that is
unchanged (``_identity``):

- the ``lstat`` of ``<root>/MEMORY.md`` (mode, device, inode, size, mtime, ctime). When that entry is not a
  symlink, its realpath is the root's realpath plus ``MEMORY.md``, always inside the root, so the containment check
  cannot fail and only the file's content matters: a write, a rename over it or a deletion changes the ``lstat``.
  The root itself swapped for another folder shows a different inode, unless that folder holds a hard link of the
  same file: the same content, and still inside its root, so the same answer the uncached check gives.
- when it is a symlink: the ``lstat`` of the link (a link cannot be edited, only replaced), the ``stat`` of the
  file it leads to, and the realpaths of the index and of the root. A folder on the way swapped for a link out of
  the root changes the index's realpath even when the file at the end is the same inode.

A stamp newer than ``SETTLE_NS`` is not trusted (git's "racy" rule): a write in the same tick of the file system's
clock as our read, with the same size, would leave the ``stat`` unchanged. Whatever cannot be stat-ed for a reason
other than absence (a permission, a loop) is read the uncached way each time, so it is reported as before.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from compact_lsp.engine.files.file_gate import AllowedRoots, open_gated
from compact_lsp.engine.files.usable_path import real_path

log = logging.getLogger(__name__)

RootKind = Literal["project", "user", "team"]

INDEX_FILE = "MEMORY.md"
INDEX_MAX_LINES = 200
INDEX_MAX_BYTES = 25_000
INDEX_TRUNCATED_NOTE = "[{name} truncated at {limit}; read the file for the rest]"

SETTLE_NS = 2_000_000_000
"""An index changed less than this long ago is read again on every use: file-system timestamps are coarse (a
kernel tick on ext4, 1-2 s on FAT and some network mounts)."""


@dataclass(frozen=True)
class MemoryIndex:
    """A root's ``MEMORY.md`` as loaded for the system prompt."""

    kind: RootKind
    path: str
    text: str
    truncated: bool


def read_index(path: str, kind: RootKind) -> MemoryIndex | None:
    """Read an index file capped at ``INDEX_MAX_LINES`` lines and ``INDEX_MAX_BYTES`` bytes, noting a cut.

    Through the file gate with the index's own folder as the root: a FIFO or a device there is refused
    without blocking, and a link out of the folder is not followed.
    """
    try:
        with open_gated(path, AllowedRoots.of(os.path.dirname(path)), max_bytes=None) as f:
            data = f.read(INDEX_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        log.warning("cannot read memory index %s: %s", path, exc)
        return None
    truncated_at: str | None = None
    if len(data) > INDEX_MAX_BYTES:
        data = data[:INDEX_MAX_BYTES]
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut >= 0 else data
        truncated_at = f"{INDEX_MAX_BYTES} bytes"
    lines = data.decode("utf-8", errors="replace").splitlines()
    if len(lines) > INDEX_MAX_LINES:
        lines = lines[:INDEX_MAX_LINES]
        truncated_at = f"{INDEX_MAX_LINES} lines"
    text = "\n".join(lines)
    if truncated_at:
        text += "\n" + INDEX_TRUNCATED_NOTE.format(name=INDEX_FILE, limit=truncated_at)
    return MemoryIndex(kind=kind, path=path, text=text, truncated=truncated_at is not None)


Stamp = tuple[int, int, int, int, int, int]
Identity = tuple[Stamp | str, ...]


def _stamp(st: os.stat_result) -> Stamp:
    return st.st_mode, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


GONE: Identity = ()
"""There is no ``MEMORY.md`` entry: no index, as the uncached way would find."""


def _identity(path: str, root_path: str) -> Identity | None:
    """What the index's answer depends on (see the module doc); ``GONE`` when there is no such entry; None when it
    cannot be told (read it the uncached way)."""
    try:
        entry = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return GONE
    except (OSError, ValueError):
        return None
    if not stat.S_ISLNK(entry.st_mode):
        return (_stamp(entry),)
    try:
        target = os.stat(path)
    except (OSError, ValueError):  # a dangling or looping link: the uncached way says why
        return None
    return _stamp(entry), _stamp(target), real_path(path), real_path(root_path)


def _settled(identity: Identity, now_ns: int) -> bool:
    stamps = [part for part in identity if isinstance(part, tuple)]
    return all(now_ns - max(s[4], s[5]) >= SETTLE_NS for s in stamps)


class IndexCache:
    """Each root's index as last read, by its path, with the identity it was read under (see the module doc).

    Used from one session's calls, which never run at once; two racing would only read the file twice.
    """

    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self._clock = clock
        """Nanoseconds, on the clock file-system timestamps are taken from."""
        self._known: dict[str, tuple[Identity, MemoryIndex | None]] = {}

    def index_of(self, root_path: str, load: Callable[[str], MemoryIndex | None]) -> MemoryIndex | None:
        """The root's index: kept when its identity is unchanged and settled, else ``load(path)`` (the uncached
        containment check and read)."""
        path = os.path.join(root_path, INDEX_FILE)
        identity = _identity(path, root_path)
        if identity == GONE:
            self._known.pop(path, None)
            return None
        known = self._known.get(path)
        if identity is not None and known is not None and known[0] == identity:
            return known[1]
        index = load(path)
        if identity is not None and _settled(identity, self._clock()):
            self._known[path] = (identity, index)
        else:
            self._known.pop(path, None)
        return index
