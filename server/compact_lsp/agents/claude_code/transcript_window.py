"""A live Claude Code transcript read as it grows, keeping only the window the model sees now.

Claude Code appends to one file for the whole session; after each compaction (a ``compact_boundary`` record) the
model sees only what follows it. ``LiveTranscript`` therefore keeps no records itself: ``read_new`` hands over
the records of the whole lines appended since the last call (a torn last line waits for its end), and when the
file is new, replaced or shortened, or a boundary arrived, the records of the window since the last boundary
instead (``Delta.reset``; for a new or replaced file they are read a chunk at a time, ``window_chunks``, so the
window's bytes and all its records are never held at once). Where that window starts is the one index into the
file it keeps, so the window can be read again (``read_window``) without the history before it. Finding the last
boundary of a big file costs a scan for the boundary's name, not a parse of every line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from compact_lsp.agents.appended_lines import LineMark, marked_lines, scan_chunks
from compact_lsp.engine.claude_code.log_lines import LineProblem, LogRecord, parse_log_lines
from compact_lsp.engine.files.file_gate import open_regular

MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
"""A transcript bigger than this is not followed."""
SCAN_CHUNK = 64 * 1024
"""How much of the file is scanned for boundaries at a time, into one buffer (``scan_chunks``): under malloc's
128 KiB threshold, so the buffer comes from the heap and not from a fresh mapping each first read (256 KiB did:
more pages touched at once than a 1M-record transcript's window takes, for the same CPU; docs/benchmarks.md,
"Figures behind the code")."""
WINDOW_CHUNK = 4 * 1024
"""How much of the window's log is parsed at a time: its records take several times its bytes (~8x for short
records), and they are what a first read holds for a moment beside the session: a smaller chunk lowers that
peak, and a line longer than the chunk is a chunk of its own, so big tool results read the same; every corpus
session's first read takes the same CPU at 4-16 KiB (docs/benchmarks.md, "Figures behind the code")."""
BOUNDARY_MARK = b'"compact_boundary"'
HEAD_BYTES = 1024 * 1024
"""How much of the file's start is read for the session's title when the window starts at a boundary."""


@dataclass(frozen=True)
class WindowStart:
    """Where the window starts: the byte offset and line number of its first line (the last boundary, or 1)."""

    offset: int = 0
    line_no: int = 1


@dataclass
class Delta:
    """What ``read_new`` found: new records, or with ``reset`` every record of the window."""

    records: list[LogRecord] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    reset: bool = False
    unread: bool = False
    """With ``reset``: the window's records are not here; read them a chunk at a time (``window_chunks``)."""


def is_boundary(data: dict[str, object]) -> bool:
    return data.get("type") == "system" and data.get("subtype") == "compact_boundary"


def _is_boundary_line(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(value, dict) and is_boundary(value)


BOUNDARY = LineMark(BOUNDARY_MARK, _is_boundary_line)


def _boundary_lines(data: bytes | bytearray, end: int | None = None) -> list[int]:
    """Offsets in ``data`` (whole lines up to ``end``) of the lines that are compaction boundaries."""
    return marked_lines(data, BOUNDARY, end)


class LiveTranscript:
    """One transcript followed as it grows (see the module doc)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        """Bytes consumed: the end of the last whole line read."""
        self.inode: tuple[int, int] | None = None
        self.window = WindowStart()
        self._partial = b""
        self._next_line = 1
        self.bytes_read = 0
        """Every byte read so far (what following costs; a rewrite reads the file again)."""

    def read_new(self) -> Delta | None:
        """What was appended since the last call; None when nothing was (the file is only stat-ed)."""
        with open_regular(str(self.path)) as f:
            st = os.fstat(f.fileno())
            inode = (st.st_dev, st.st_ino)
            if st.st_size > MAX_TRANSCRIPT_BYTES:
                raise ValueError(f"{self.path} is over {MAX_TRANSCRIPT_BYTES // (1024 * 1024)} MiB; not followed")
            if self.inode != inode or st.st_size < self.offset:
                self.inode = inode
                return self._read_from_top(f, st.st_size)
            if st.st_size == self.offset + len(self._partial):
                return None
            f.seek(self.offset + len(self._partial))
            data = self._partial + f.read(st.st_size - self.offset - len(self._partial))
        self.bytes_read += len(data) - len(self._partial)
        cut = data.rfind(b"\n") + 1
        whole, self._partial = data[:cut], data[cut:]
        if not whole:
            return None
        first_line, self._next_line = self._next_line, self._next_line + whole.count(b"\n")
        start, self.offset = self.offset, self.offset + cut
        boundaries = _boundary_lines(whole)
        if boundaries:  # a compaction: the model now sees what follows the last boundary
            at = boundaries[-1]
            self.window = WindowStart(start + at, first_line + whole.count(b"\n", 0, at))
            records, problems = parse_log_lines(whole[at:], self.window.line_no)
            return Delta(records, problems, reset=True)
        records, problems = parse_log_lines(whole, first_line)
        return Delta(records, problems)

    def _read_from_top(self, f: BinaryIO, size: int) -> Delta:
        """A new or replaced file: find its last boundary by scanning, then read the window after it."""
        self.offset, self._partial, self._next_line, self.window = 0, b"", 1, WindowStart()
        f.seek(0)
        line_no = 1
        for chunk in scan_chunks(f, size, SCAN_CHUNK):
            self.bytes_read += chunk.read
            for at in _boundary_lines(chunk.data, chunk.whole):
                self.window = WindowStart(chunk.at + at, line_no + chunk.data.count(b"\n", 0, at))
            line_no += chunk.data.count(b"\n", 0, chunk.whole)
            self.offset = chunk.at + chunk.whole
            self._partial = bytes(chunk.data[chunk.whole : chunk.end])  # a torn last line waits for its end
        self._next_line = line_no
        return Delta(reset=True, unread=True)

    def window_chunks(self) -> Iterator[tuple[list[LogRecord], list[LineProblem]]]:
        """The window's records from the file, about ``WINDOW_CHUNK`` of log at a time (whole lines: a longer line
        is a chunk of its own, read into a buffer that doubles, not joined again to each read), so reading a window
        never holds its bytes and all its records at once."""
        with open_regular(str(self.path)) as f:
            f.seek(self.window.offset)
            line_no = self.window.line_no
            for chunk in scan_chunks(f, self.offset - self.window.offset, WINDOW_CHUNK):
                self.bytes_read += chunk.read
                if chunk.whole:
                    yield parse_log_lines(chunk.lines(), line_no)
                    line_no += chunk.data.count(b"\n", 0, chunk.whole)

    def read_window(self) -> tuple[list[LogRecord], list[LineProblem]]:
        """Every record of the window again, from the file (when what was appended cannot simply extend it)."""
        records: list[LogRecord] = []
        problems: list[LineProblem] = []
        for more, bad in self.window_chunks():
            records += more
            problems += bad
        return records, problems

    def head_records(self, limit: int = HEAD_BYTES) -> list[LogRecord]:
        """The records of the file's first ``limit`` bytes (at most ``HEAD_BYTES``) before its first boundary (where
        the user's first request is)."""
        if self.window.offset == 0:
            return []
        with open_regular(str(self.path)) as f:
            data = f.read(min(limit, HEAD_BYTES, self.window.offset))
        data = data[: data.rfind(b"\n") + 1]
        cut = _boundary_lines(data)
        records, _ = parse_log_lines(data[: cut[0]] if cut else data)
        return records
