"""A log file read as it grows: the whole lines appended since the last look, or all of them again when the file
was replaced (another inode) or shortened. Nothing is kept but where the last whole line ended and a torn last
line (which waits for its end), so a look costs what was appended, and a look when nothing was costs a ``stat``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from compact_lsp.engine.files.file_gate import open_regular

CHUNK = 1 << 20


@dataclass
class Appended:
    """What one look found: ``reset`` when every line of the file follows (new, replaced or shortened)."""

    reset: bool
    lines: Iterator[bytes]
    """The whole lines, read from the open file as they are taken (a torn last line is kept for later)."""


class AppendedLines:
    """One log file followed as it grows (see the module doc)."""

    def __init__(self, path: Path, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.offset = 0
        """Bytes consumed: the end of the last whole line read."""
        self.inode: tuple[int, int] | None = None
        self.bytes_read = 0
        """Every byte read so far (what following costs)."""
        self._partial = b""

    def forget(self) -> None:
        """Read the whole file again at the next look."""
        self.inode = None

    @contextlib.contextmanager
    def look(self) -> Iterator[Appended | None]:
        """What was appended since the last look, None when nothing was; the file stays open while it is read."""
        with open_regular(str(self.path), max_bytes=self.max_bytes) as f:
            st = os.fstat(f.fileno())
            inode = (st.st_dev, st.st_ino)
            reset = self.inode != inode or st.st_size < self.offset + len(self._partial)
            if reset:
                self.inode, self.offset, self._partial = inode, 0, b""
            elif st.st_size == self.offset + len(self._partial):
                yield None
                return
            f.seek(self.offset + len(self._partial))
            yield Appended(reset, self._lines(f, st.st_size - self.offset - len(self._partial)))

    def _lines(self, f: BinaryIO, size: int) -> Iterator[bytes]:
        while size > 0:
            read = f.read(min(CHUNK, size))
            if not read:
                return
            size -= len(read)
            self.bytes_read += len(read)
            data = self._partial + read if self._partial else read
            cut = data.rfind(b"\n") + 1
            self._partial = data[cut:]
            start = 0
            while start < cut:
                end = data.index(b"\n", start, cut) + 1
                self.offset += end - start
                yield data[start:end]
                start = end
