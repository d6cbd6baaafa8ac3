"""A log file read as it grows: the whole lines appended since the last look, or all of them again when the file
was replaced (another inode) or shortened. Nothing is kept but where the last whole line ended and a torn last
line (which waits for its end), so a look costs what was appended, and a look when nothing was costs a ``stat``.

A file read from its start can also say, before its lines are read, where its last marked line starts (a
compaction: what comes before it is no longer in the model's context), found by a scan for the mark's bytes, not
a parse of every line (``marked_lines``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from compact_lsp.engine.files.file_gate import open_regular

CHUNK = 256 * 1024
"""How much of the file is read at a time (its lines are handed over one by one)."""


@dataclass(frozen=True)
class LineMark:
    """Lines that matter before the others are read: those holding ``text``, for which ``holds`` (given the
    line's bytes, without its newline) says they are what the text suggests."""

    text: bytes
    holds: Callable[[bytes], bool]


def marked_lines(data: bytes | bytearray, mark: LineMark, end: int | None = None) -> list[int]:
    """Offsets in ``data`` (whole lines up to ``end``) of the lines ``mark`` marks."""
    found: list[int] = []
    stop = len(data) if end is None else end
    at = data.find(mark.text, 0, stop)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        line_end = data.find(b"\n", at, stop)
        line_end = stop if line_end == -1 else line_end
        if mark.holds(bytes(data[start:line_end])):  # a scan's buffer is a bytearray; the check takes bytes
            found.append(start)
        at = data.find(mark.text, line_end, stop)
    return found


@dataclass(frozen=True)
class ScanChunk:
    """One chunk of a scan (``scan_chunks``): ``data[:whole]`` are whole lines, starting ``at`` bytes into what is
    scanned; ``data[whole:end]`` is the torn line carried to the next chunk; ``read`` bytes of it are new from the
    file. ``data`` is the scan's one buffer, so it holds this chunk only until the next is read."""

    data: bytearray
    whole: int
    end: int
    at: int
    read: int

    def lines(self) -> bytes:
        """The chunk's whole lines, copied once out of the buffer."""
        with memoryview(self.data) as view, view[: self.whole] as whole:
            return bytes(whole)


def scan_chunks(f: BinaryIO, size: int, chunk: int = CHUNK) -> Iterator[ScanChunk]:
    """The next ``size`` bytes of ``f`` a chunk of whole lines at a time, read into one buffer of ``chunk`` bytes
    (grown only for a line longer than it), so a scan of any file holds one chunk: no fresh chunk and copy of it
    (the torn line joined to the next read) per read, which the allocator keeps resident after a big file's scan."""
    buffer = bytearray(chunk)
    kept = at = 0
    while size > 0:
        if kept == len(buffer):  # one line fills the buffer: make room for more of it
            buffer.extend(bytes(len(buffer)))
        with memoryview(buffer) as view, view[kept : kept + min(len(buffer) - kept, size)] as into:
            read = f.readinto(into)  # type: ignore[attr-defined]  # a BufferedReader; BinaryIO leaves readinto out
        if not read:
            return
        size -= read
        end = kept + read
        whole = buffer.rfind(b"\n", 0, end) + 1
        yield ScanChunk(buffer, whole, end, at, read)
        if whole:
            at += whole
            buffer[: end - whole] = buffer[whole:end]  # the torn line to the front; as long as it was: no resize
        kept = end - whole
        if len(buffer) > chunk and kept < chunk:  # a long line grew it: chunks again, not a long line's worth of
            del buffer[chunk:]  # records at a time (a 1 MiB buffer after one big tool result held ~300 records)


@dataclass
class Appended:
    """What one look found: ``reset`` when every line of the file follows (new, replaced or shortened)."""

    reset: bool
    lines: Iterator[bytes]
    """The whole lines, read from the open file as they are taken (a torn last line is kept for later)."""
    last_marked: int | None = None
    """With ``reset`` and a mark: where the file's last marked whole line starts (None: no line is marked, or the
    file was too small to be scanned)."""


class AppendedLines:
    """One log file followed as it grows (see the module doc)."""

    def __init__(self, path: Path, max_bytes: int, mark: LineMark | None = None, mark_over: int = 0) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.mark = mark
        """The lines whose last one a look from the start finds first (``Appended.last_marked``)..."""
        self.mark_over = mark_over
        """... in a file over this many bytes (a smaller one is not scanned: ``last_marked`` is None)."""
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
            scan = reset and self.mark is not None and st.st_size > self.mark_over
            last = self._last_marked(f, st.st_size) if scan else None
            f.seek(self.offset + len(self._partial))
            yield Appended(reset, self._lines(f, st.st_size - self.offset - len(self._partial)), last)

    def _last_marked(self, f: BinaryIO, size: int) -> int | None:
        """Where the last whole line ``self.mark`` marks starts, scanning the file a chunk at a time."""
        assert self.mark is not None
        last = None
        f.seek(0)
        for chunk in scan_chunks(f, size):
            self.bytes_read += chunk.read
            found = marked_lines(chunk.data, self.mark, chunk.whole)
            if found:
                last = chunk.at + found[-1]
        return last

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
