"""Claude Code's last compaction in a transcript: what came before it, and the context it built after it.

A compaction is a ``{"type": "system", "subtype": "compact_boundary", "parentUuid": null, "logicalParentUuid":
..., "compactMetadata": {...}}`` record, then the summary (a user record with ``isCompactSummary``). The new
context is: the summary, the preserved segment (``compactMetadata.preservedMessages.uuids``, older
``preservedSegment.headUuid``..``tailUuid``: the last assistant message, kept verbatim; its records stay where
they were in the file), the ``file`` attachments Claude Code re-attached, then whatever followed.

``read_tail`` reads a transcript from its end back to the n-th boundary from its end, so the hook's work is
bounded by the last context, not by the whole history; ``with_preserved`` steps back from a boundary's line over
the records of the segment it preserved (they stay before it in the file).
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.claude_code.log_lines import LogRecord, last_boundary
from compact_lsp.engine.conversation.messages import blocks_of
from compact_lsp.engine.files.file_gate import open_regular

TAIL_CHUNK = 1 << 20
BOUNDARY_MARK = b'"compact_boundary"'
PRESERVED_REACH = 4 << 20
"""How far before a boundary its preserved segment's records are looked for (the last assistant message)."""
_UUID_VALUE = re.compile(rb"^[0-9A-Za-z_-]{1,64}$")


@dataclass(eq=False)
class CompactionSplit:
    """The selected records around the last compaction boundary (``boundary`` None: there was none)."""

    history: list[LogRecord]
    context: list[LogRecord]
    boundary: LogRecord | None = None
    summary: LogRecord | None = None
    preserved: list[LogRecord] = field(default_factory=list)


def _preserved_uuids(meta: dict[str, Any]) -> list[str]:
    kept = meta.get("preservedMessages")
    uuids = kept.get("uuids") if isinstance(kept, dict) else None
    if isinstance(uuids, list):
        return [u for u in uuids if isinstance(u, str)]
    segment = meta.get("preservedSegment")
    if isinstance(segment, dict):
        return [u for u in (segment.get("headUuid"), segment.get("tailUuid")) if isinstance(u, str)]
    return []


def split_at_last_compaction(records: list[LogRecord], selected: list[LogRecord]) -> CompactionSplit:
    """``selected`` (message records in file order) split at the last boundary in ``records``."""
    at = last_boundary(records)
    if at is None:
        return CompactionSplit(history=[], context=list(selected))
    boundary = records[at]
    line = boundary.line_no
    history = [r for r in selected if r.line_no < line]
    # a boundary put in for a 1.0.x compaction shares its summary's line (legacy_shapes); no other message does
    after = [r for r in selected if r.line_no >= line]
    summary = next((r for r in after if r.data.get("isCompactSummary") is True), None)
    meta = boundary.data.get("compactMetadata")
    wanted = _preserved_uuids(meta) if isinstance(meta, dict) else []
    preserved = [r for r in history if r.uuid in wanted] if wanted else []
    if summary is None:
        context = [*preserved, *after]
    else:
        at_summary = after.index(summary)
        context = [*after[: at_summary + 1], *preserved, *after[at_summary + 1 :]]
    return CompactionSplit(history, context, boundary, summary, preserved)


def text_of(record: LogRecord) -> str:
    if record.message is None:
        return ""
    return "\n".join(str(b.get("text", "")) for b in blocks_of(record.message) if b.get("type") == "text")


def reattached_files(records: list[LogRecord]) -> list[tuple[str, str]]:
    """(path, content) of every ``file`` attachment after the last boundary, in order: what Claude Code put back."""
    at = last_boundary(records)
    found: list[tuple[str, str]] = []
    for record in records[at + 1 :] if at is not None else []:
        attachment = record.data.get("attachment") if record.is_attachment else None
        if not isinstance(attachment, dict) or attachment.get("type") != "file":
            continue
        content = attachment.get("content")
        file = content.get("file") if isinstance(content, dict) else None
        path = file.get("filePath") if isinstance(file, dict) else attachment.get("filename")
        text = file.get("content") if isinstance(file, dict) else None
        if isinstance(path, str) and path:
            found.append((path, text if isinstance(text, str) else ""))
    return found


def read_tail(path: str, boundaries: int = 2, *, max_bytes: int | None = None) -> bytes:
    """The transcript from the start of the line holding its ``boundaries``-th boundary from the end (the whole
    file when it has fewer), searched from the end; at most ``max_bytes`` (rounded up to whole chunks, from the
    first whole line in them) when given."""
    with mapped_tail(path, boundaries, max_bytes=max_bytes) as (data, start, end):
        return data[start:end]


@contextmanager
def mapped_tail(
    path: str, boundaries: int = 2, *, max_bytes: int | None = None
) -> Iterator[tuple[bytes | mmap.mmap, int, int]]:
    """``read_tail`` as ``(data, start, end)``, the tail being ``data[start:end]``, without copying it: ``data`` is
    the file mapped while the block runs (a file system that cannot map files: the window read once). Reading it
    back a chunk at a time copied a 13 MB transcript three times over; a copy of the tail, once more."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        window = size if max_bytes is None else min(size, max(TAIL_CHUNK, -(-max_bytes // TAIL_CHUNK) * TAIL_CHUNK))
        if window == 0:
            yield b"", 0, 0
            return
        try:
            mapped = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            f.seek(size - window)
            data = f.read(window)
            yield (data, *_tail_span(data, 0, len(data), boundaries, max_bytes, whole=window == size))
            return
        with mapped:
            yield (mapped, *_tail_span(mapped, size - window, size, boundaries, max_bytes, whole=window == size))


def _tail_span(
    data: bytes | mmap.mmap, lo: int, size: int, boundaries: int, max_bytes: int | None, *, whole: bool
) -> tuple[int, int]:
    """Where ``read_tail`` starts and ends in ``data[lo:size]``, the window it may look at (``whole``: the window
    is the whole file)."""
    start = _boundary_line_start(data, lo, size, boundaries, whole=whole)
    if start is not None:
        return start, size
    if max_bytes is not None and size - lo >= max_bytes:  # the window is full: from its first whole line
        cut = data.find(b"\n", lo, size)
        return (cut + 1, size) if cut >= 0 else (size, size)
    return lo, size


def _boundary_line_start(data: bytes | mmap.mmap, lo: int, size: int, boundaries: int, *, whole: bool) -> int | None:
    """Where the line of the ``boundaries``-th boundary from the end starts in ``data[lo:size]`` (a complete line
    only: one that may begin before ``lo`` stops the search, unless the window is the ``whole`` file)."""
    seen = 0
    end = size
    while (hit := data.rfind(BOUNDARY_MARK, lo, end)) >= 0:
        newline = data.rfind(b"\n", lo, hit)
        if newline < 0 and not whole:
            return None  # the line may begin before the window
        start = newline + 1 if newline >= 0 else lo
        stop = data.find(b"\n", hit, size)
        line = data[start : stop if stop >= 0 else size]
        if b'"subtype":"compact_boundary"' in line.replace(b" ", b"") and b'"type":"system"' in line.replace(b" ", b""):
            seen += 1
            if seen == boundaries:
                return start
        end = start
    return None


def with_preserved(data: bytes | mmap.mmap, start: int, end: int) -> int:
    """Where to start reading so that the boundary whose line starts at ``start`` comes with the records of the
    segment it preserved: they stay where they were, before it. Looked for by their ``"uuid"`` within
    ``PRESERVED_REACH`` bytes back; ``start`` itself when the boundary names none or they are not there."""
    stop = data.find(b"\n", start, end)
    line = bytes(data[start : stop if stop >= 0 else end])
    if BOUNDARY_MARK not in line:
        return start
    try:
        record = json.loads(line)
    except ValueError:
        return start
    meta = record.get("compactMetadata") if isinstance(record, dict) else None
    lo, first = max(0, start - PRESERVED_REACH), start
    for uuid in _preserved_uuids(meta) if isinstance(meta, dict) else []:
        if not _UUID_VALUE.match(uuid.encode()):
            continue
        hit = data.rfind(b'"uuid":"' + uuid.encode() + b'"', lo, start)
        newline = data.rfind(b"\n", lo, hit) if hit >= 0 else -1
        if newline >= 0 or (hit >= 0 and lo == 0):  # a whole line only
            first = min(first, newline + 1)
    return first
