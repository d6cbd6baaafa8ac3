"""The agent's read tool, served by the server: bounded, text-only reads inside the workspace.

Refused with ``ReadRefused`` (the message is shown to a person): paths outside the allowed roots after
resolving symlinks, anything but a regular file (directories, devices, FIFOs, sockets), binary files (a NUL
byte or bytes that are not UTF-8), and whole-file reads of files over the size cap. A larger file can be read
by range: the range is streamed line by line and never holds more than the cap in memory.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.files.file_gate import AllowedRoots, OutsideRoots, describe_kind, open_verified, read_gated
from compact_lsp.engine.files.usable_path import path_problem, real_path

if TYPE_CHECKING:
    from compact_lsp.engine.session.context_session import ContextSession

MAX_FILE_BYTES = 10 * 1024 * 1024
"""Whole-file reads above this are refused; read such a file by range (offset/limit)."""

DEFAULT_LINE_LIMIT = 2000
"""Lines returned when the caller gives no limit (as Claude Code's Read tool does)."""

BINARY_SNIFF_BYTES = 8192


class ReadRefused(ValueError):
    """A read the server will not do; the text says why and what to do instead."""


@dataclass(frozen=True)
class FileRead:
    path: str
    """The path as the client should refer to it: relative to the workspace root when inside it."""
    real_path: str
    content: str
    start_line: int
    num_lines: int
    total_lines: int
    truncated: bool

    def record_in(self, session: ContextSession, tool_use_id: str | None = None) -> None:
        """Tell the session's read-file state what this read showed the model (journalled there)."""
        session.record_read(
            self.real_path,
            self.content,
            tool_use_id=tool_use_id,
            start_line=self.start_line,
            num_lines=self.num_lines,
            total_lines=self.total_lines,
        )


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


def resolve_inside(path: str, workspace_root: str | None, extra_roots: Sequence[str] = ()) -> tuple[str, str]:
    """(display path, real path) of ``path``; ``ReadRefused`` when it resolves outside every allowed root."""
    if not isinstance(path, str) or not path:
        raise ReadRefused("'path' must be a non-empty file path")
    problem = path_problem(path)
    if problem is not None:
        raise ReadRefused(f"'path' {problem}, so it cannot name a file; send a real path")
    if workspace_root is None and not os.path.isabs(path):
        raise ReadRefused(f"{path}: a relative path needs a workspace folder; open a folder or pass an absolute path")
    joined = os.path.join(workspace_root or "", os.path.expanduser(path))
    real = real_path(joined)  # a swap mid-resolution (EINVAL from readlink) is not an error; the open checks again
    roots = [real_path(r) for r in (workspace_root, *extra_roots) if r]
    if not roots:
        raise ReadRefused("no workspace folder is open, so there is nothing the server may read")
    if not any(_inside(real, root) for root in roots):
        raise ReadRefused(
            f"{path} is outside the workspace ({roots[0]}) after resolving symlinks; "
            "only files inside the workspace folders, the added directories (additionalDirectories) or the "
            "managed-memory folders can be used"
        )
    workspace_real = roots[0] if workspace_root else None
    display = os.path.relpath(real, workspace_real) if workspace_real and _inside(real, workspace_real) else real
    return display, real


def read_text_file(
    path: str,
    workspace_root: str | None,
    *,
    offset: int | None = None,
    limit: int | None = None,
    extra_roots: Sequence[str] = (),
    max_bytes: int = MAX_FILE_BYTES,
) -> FileRead:
    """Read lines ``offset`` (1-based) to ``offset + limit - 1`` of a text file; blocking (use a thread)."""
    if offset is not None and offset < 1:
        raise ReadRefused(f"'offset' is a 1-based line number, got {offset}")
    if limit is not None and limit < 1:
        raise ReadRefused(f"'limit' must be at least 1 line, got {limit}")
    display, real = resolve_inside(path, workspace_root, extra_roots)
    ranged = offset is not None or limit is not None
    roots = AllowedRoots.of(workspace_root, *extra_roots)
    return _read(display, real, roots, offset or 1, limit or DEFAULT_LINE_LIMIT, ranged, max_bytes)


def current_text(real_path: str, roots: AllowedRoots, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """A watched file's whole text now, for a change diff, through the file gate (``engine/files/file_gate.py``);
    None when it is gone, refused by the gate (outside ``roots``, not a regular file, over the cap) or not text
    (binary, not UTF-8). Blocking (use a thread)."""
    try:
        data = read_gated(real_path, roots, max_bytes=max_bytes)
    except OSError:
        return None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _read(
    display: str, real: str, roots: AllowedRoots, start: int, limit: int | None, ranged: bool, max_bytes: int
) -> FileRead:
    """Open ``real`` through the gate's open-then-verify (never following a link swapped in since ``real`` was
    resolved, never blocking on a FIFO, the descriptor checked to be inside ``roots``), refuse what is not a
    regular text file, read the range."""
    try:
        fd, st = open_verified(real, roots, shown=display)
    except FileNotFoundError:
        raise ReadRefused(f"{display}: no such file") from None
    except PermissionError:
        raise ReadRefused(f"{display}: permission denied") from None
    except OutsideRoots:
        raise ReadRefused(f"{display} changed while it was opened and now leads outside the workspace") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ReadRefused(f"{display} became a symbolic link while it was opened; read it again") from None
        raise ReadRefused(f"{display}: cannot open ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise ReadRefused(f"{display} is a directory; list it instead of reading it")
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ReadRefused(f"{display} is {describe_kind(st.st_mode)}; only regular text files can be read")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as f:
        if st.st_size > max_bytes and not ranged:
            raise ReadRefused(
                f"{display} is {st.st_size / 1_048_576:.1f} MiB, over the {max_bytes // 1_048_576} MiB cap; "
                "read it by range with 'offset' and 'limit'"
            )
        head = f.read(BINARY_SNIFF_BYTES)
        if b"\x00" in head:
            raise ReadRefused(f"{display} looks binary (it contains NUL bytes); only text files can be read")
        f.seek(0)
        return _read_range(f, display, real, start, limit, max_bytes)


READ_CHUNK_BYTES = 64 * 1024
"""Reads scan the file in chunks of this size: memory stays at the range read plus one chunk, whatever the lines."""


def _read_range(f: Any, display: str, real: str, start: int, limit: int | None, max_bytes: int) -> FileRead:
    """Lines ``start`` to ``start + limit - 1`` (``limit`` None: to the end), never over ``max_bytes``.

    Streams the file in ``READ_CHUNK_BYTES`` chunks and keeps only the bytes of the range: a 400 MB line before
    or after the range, or a sparse file's gigabyte hole, is counted, never held in memory.
    """
    end = None if limit is None else start + limit  # first line number after the range
    picked = bytearray()
    line = 1  # the line the next byte belongs to
    partial = False  # the current line has bytes but no newline yet
    while chunk := f.read(READ_CHUNK_BYTES):
        if b"\x00" in chunk:
            raise ReadRefused(f"{display} looks binary (it contains NUL bytes); only text files can be read")
        newlines = chunk.count(b"\n")
        if line + newlines < start or (end is not None and line >= end):  # wholly before or after the range
            line += newlines
            partial = not chunk.endswith(b"\n")
            continue
        pos = 0
        while pos < len(chunk):
            nl = chunk.find(b"\n", pos)
            stop = len(chunk) if nl < 0 else nl + 1
            if start <= line and (end is None or line < end):
                picked += chunk[pos:stop]
                if len(picked) > max_bytes:
                    raise ReadRefused(
                        f"{display}: lines {start}-{line} are over the {max_bytes / 1_048_576:.0f} MiB limit; "
                        "read a smaller range"
                    )
            partial = nl < 0
            line += 0 if nl < 0 else 1
            pos = stop
    total = line if partial else line - 1
    raw = bytes(picked)
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReadRefused(f"{display} is not UTF-8 text; only text files can be read") from None
    if content.startswith("\ufeff") and start == 1:
        content = content[1:]
    if start > total and total > 0:
        raise ReadRefused(f"{display} has {total} lines; 'offset' {start} is past the end")
    num = raw.count(b"\n") + (1 if raw and not raw.endswith(b"\n") else 0)
    return FileRead(
        path=display,
        real_path=real,
        content=content,
        start_line=start,
        num_lines=num,
        total_lines=total,
        truncated=num < total,
    )
