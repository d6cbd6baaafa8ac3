"""One file's entry in the read-file state: what the model last saw of it, and whether the file changed since.

``ReadRecord`` keeps what was seen (hash, size, tokens, the line range), when, and the file's stat at that moment;
``Freshness`` is how the stat compares now. The stat is injected (``StatFn``) so tests can fake the file system.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from compact_lsp.engine.conversation.messages import Block, canonical_json, result_text

log = logging.getLogger(__name__)


def content_hash(text: str) -> str:
    """The hash a record keeps of what the model saw (the text itself is not kept)."""
    import hashlib  # here: OpenSSL loads only when a read is recorded, not with every import of this module

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def seen_content(block: Block) -> str:
    """What the model saw in a result: its text, or its whole content when it holds images or documents."""
    content = block.get("content", "")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") != "text" for b in content):
        return canonical_json(content)
    return result_text(block)


def int_or_none(value: object) -> int | None:
    """An integer field of a tool's input (a bool is not one)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def shared(text: str, kept: str) -> str:
    """``text``, or ``kept`` when they are equal: one string for both (a record keeps four paths, most often the
    same; paths are compared by value, never by identity)."""
    return kept if text == kept else text


RecordKind = Literal["read", "write", "edit", "editor"]


class Freshness(StrEnum):
    FRESH = "fresh"
    STALE = "stale"
    DELETED = "deleted"
    UNKNOWN = "unknown"


@dataclass
class FileStat:
    """The parts of a stat that tell whether a file changed."""

    mtime_ns: int
    size: int
    inode: int


StatFn = Callable[[str], FileStat | None]
"""Returns the file's stat, None if it does not exist; raises OSError when it cannot tell."""


def os_stat(path: str) -> FileStat | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return FileStat(st.st_mtime_ns, st.st_size, st.st_ino)


def safe_stat(stat: StatFn, path: str) -> tuple[FileStat | None, bool]:
    """(stat, known): known is False when the file system would not say (permissions, I/O errors)."""
    try:
        return stat(path), True
    except OSError as exc:
        log.debug("cannot stat %s: %s", path, exc)
        return None, False


@dataclass(slots=True)
class ReadRecord:
    """What the model last saw of one file, and when (slots: a session keeps one for each of up to thousands of
    files, and a ``__dict__`` each was a third of what a record costs)."""

    path_as_given: str
    resolved_path: str
    realpath: str
    kind: RecordKind
    read_at: float
    """When the model last saw this file's content (read, wrote or edited it); drives recency."""
    content_hash: str | None = None
    """sha256 of what the model saw (the tool result text, or the written content); None after an edit."""
    bytes: int = 0
    tokens: int = 0
    mtime_ns: int | None = None
    size: int | None = None
    inode: int | None = None
    offset: int | None = None
    limit: int | None = None
    start_line: int | None = None
    num_lines: int | None = None
    total_lines: int | None = None
    tool_use_id: str | None = None
    in_history: bool = True
    """The model's copy of the file is still in the conversation."""
    written_at: float | None = None
    error: str | None = None
    """The last attempt on this path failed (error, denied); content fields describe the last success."""
    error_kind: RecordKind | None = None
    """What the failed attempt was: a failed read keeps the file out of rehydration, a failed (rejected) edit
    or write does not (the agent usually goes back to that file)."""
    history_ids: tuple[str, ...] = ()
    """tool_use ids whose content makes up the model's copy, each once; clearing any of them takes the copy out (a
    tuple: one or two ids each, where a set of one took 216 bytes)."""
    display_path: str = ""
    """The path as shown to people: relative to the state's ``cwd`` (the workspace) when inside it."""
    freshness: Freshness = Freshness.UNKNOWN
    """As of the last ``ReadFileState.freshness``/``refresh`` (recording computes it too)."""
    open: bool = False
    dirty: bool = False

    @property
    def is_partial(self) -> bool:
        if self.limit is not None or (self.offset is not None and self.offset > 1):
            return True
        if self.start_line is not None and self.start_line > 1:
            return True
        # without total_lines the reader's count is taken as the whole file: pass it to mark a truncated read
        return self.num_lines is not None and self.total_lines is not None and self.num_lines < self.total_lines

    @property
    def range_label(self) -> str:
        if not self.is_partial:
            return "full"
        first, last = self.line_span()
        return f"lines {first}-{last if last is not None else 'end'}"

    def line_span(self) -> tuple[int, int | None]:
        """(first line, last line or None for "to the end"), 1-based."""
        first = self.start_line if self.start_line is not None else max(1, self.offset or 1)
        count = self.num_lines if self.num_lines is not None else self.limit
        return first, (first + count - 1 if count is not None else None)

    def covers(self, offset: int | None, limit: int | None) -> bool:
        """Whether this record's lines include the requested ones (a full read covers any range)."""
        if not self.is_partial:
            return True
        first, last = self.line_span()
        want_first = max(1, offset or 1)
        want_last = want_first + limit - 1 if limit is not None else None
        if want_first < first:
            return False
        return last is None or (want_last is not None and want_last <= last)


def compare_stat(stat_fn: StatFn, record: ReadRecord) -> Freshness:
    """The record's file now: mtime, size or inode changed means stale (an atomic save replaces the inode)."""
    stat, known = safe_stat(stat_fn, record.realpath)
    if not known:
        return Freshness.UNKNOWN
    if stat is None:
        return Freshness.DELETED
    if record.mtime_ns is None:  # it did not exist when recorded: nothing to compare with
        return Freshness.UNKNOWN
    if (stat.mtime_ns, stat.size, stat.inode) != (record.mtime_ns, record.size, record.inode):
        return Freshness.STALE
    return Freshness.FRESH
