"""Read-file state: which files the model has seen, whether they changed since, and whether it still has them.

Reads, writes and edits are learnt from the conversation (``observe``) or told by the server's own reader
(``record_read``). A tool result is tied to its path only through its request's tool_use id; an id used with
several paths, or a result whose request cannot be found, is flagged and never guessed. Records are keyed by
realpath and bounded (least recently touched evicted first).

The point of ``in_history``: once microcompaction clears a read, or full compaction drops the history, the
model no longer has that content, so ``can_skip_reread`` must say False even though the file is unchanged.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from .editor_documents import EditorDocument as EditorDocument  # moved; importable from here as before
from .editor_documents import EditorDocuments, display_path, iso_seconds
from .messages import Block, Message, blocks_of, canonical_json, is_empty_result, result_text
from .settings import DEFAULT_EDIT_TOOLS, DEFAULT_READ_TOOLS, DEFAULT_WRITE_TOOLS
from .tokens import TokenCounter

log = logging.getLogger(__name__)

RecordKind = Literal["read", "write", "edit", "editor"]
FlagCode = Literal["ambiguous-id", "no-request"]

PATH_KEYS = ("file_path", "path", "absolute_path", "notebook_path")
"""Tool input keys that name the file, in the order they are tried (Claude Code, then Gemini/Qwen styles)."""

MAX_FLAGS = 1_000
"""Flags kept (oldest dropped): they are diagnostics, not state."""


class Freshness(StrEnum):
    FRESH = "fresh"
    STALE = "stale"
    DELETED = "deleted"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
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


def _safe_stat(stat: StatFn, path: str) -> tuple[FileStat | None, bool]:
    """(stat, known): known is False when the file system would not say (permissions, I/O errors)."""
    try:
        return stat(path), True
    except OSError as exc:
        log.debug("cannot stat %s: %s", path, exc)
        return None, False


@dataclass
class ReadRecord:
    """What the model last saw of one file, and when."""

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
    history_ids: set[str] = field(default_factory=set)
    """tool_use ids whose content makes up the model's copy; clearing any of them takes the copy out."""
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

    def to_wire(self) -> dict[str, Any]:
        """The ``compact/status`` readFiles entry (freshness as last computed: call ``refresh`` first)."""
        return {
            "path": self.display_path or self.resolved_path,
            "freshness": self.freshness.value,
            "range": self.range_label,
            "tokens": self.tokens,
            "readAt": iso_seconds(self.read_at),
            "inHistory": self.in_history,
            "open": self.open,
            "dirty": self.dirty,
        }


@dataclass(frozen=True)
class ReadFlag:
    """A tool result that could not be tied to exactly one path."""

    tool_use_id: str
    code: FlagCode
    detail: str


@dataclass
class _FileUse:
    tool_use_id: str
    name: str
    kind: RecordKind
    path: str | None
    input: dict[str, Any]


def _input_path(tool_input: dict[str, Any]) -> str | None:
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _seen_content(block: Block) -> str:
    """What the model saw in a result: its text, or its whole content when it holds images or documents."""
    content = block.get("content", "")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") != "text" for b in content):
        return canonical_json(content)
    return result_text(block)


class ReadFileState:
    """The seed's ``readFileState``: bounded, keyed by realpath, least recently touched evicted first."""

    def __init__(
        self,
        capacity: int = 4096,
        clock: Callable[[], float] = time.time,
        read_tools: Iterable[str] = DEFAULT_READ_TOOLS,
        write_tools: Iterable[str] = DEFAULT_WRITE_TOOLS,
        edit_tools: Iterable[str] = DEFAULT_EDIT_TOOLS,
        cwd: str | None = None,
        counter: TokenCounter | None = None,
        stat: StatFn = os_stat,
    ) -> None:
        if capacity < 1:
            raise ValueError("read-file state capacity must be at least 1")
        self.capacity = capacity
        self.clock = clock
        self.cwd = cwd or os.getcwd()
        self.flags: list[ReadFlag] = []
        self._kinds: dict[str, RecordKind] = {name: "edit" for name in edit_tools}
        self._kinds.update({name: "write" for name in write_tools})
        self._kinds.update({name: "read" for name in read_tools})
        self._counter = counter
        self._stat = stat
        self._records: OrderedDict[str, ReadRecord] = OrderedDict()
        self._pending: dict[str, _FileUse | None] = {}  # unanswered tool_use ids (None: not a file tool)
        self._id_paths: OrderedDict[str, list[str]] = OrderedDict()  # tool_use id -> request-side paths
        self.documents = EditorDocuments(
            self.resolve, clock, lambda resolved: display_path(resolved, self.cwd), self._sync_record
        )
        """The documents open in the editor; the ``*_document`` methods below delegate to it."""

    # -- paths ---------------------------------------------------------------------------------------------

    def resolve(self, path: str) -> tuple[str, str]:
        """(resolved, realpath): absolute against ``cwd``, ``~`` expanded; realpath resolves what exists."""
        joined = os.path.join(self.cwd, os.path.expanduser(path))
        # realpath gets the joined path: ".." after a symlink means the link target's parent, not normpath's.
        return os.path.normpath(joined), os.path.realpath(joined)

    def _key(self, path_or_record: str | ReadRecord) -> str:
        if isinstance(path_or_record, ReadRecord):
            return path_or_record.realpath
        return self.resolve(path_or_record)[1]

    def _count(self, block: Block) -> int:
        if self._counter is None:
            from .tokens import TiktokenCounter

            self._counter = TiktokenCounter()
        return self._counter.count_block(block)

    # -- learning from the conversation ---------------------------------------------------------------------

    def observe(self, messages: Sequence[Message], start: int = 0) -> None:
        """Learn reads, writes and edits from ``messages[start:]``; earlier messages must have been observed.

        Unanswered tool_use ids are kept, so observing only the appended messages costs only those.
        """
        for message in messages[start:]:
            role = message.get("role")
            for block in blocks_of(message):
                kind = block.get("type")
                if role == "assistant" and kind == "tool_use":
                    self._on_tool_use(block)
                elif role == "user" and kind == "tool_result":
                    self._on_tool_result(block)

    def _on_tool_use(self, block: Block) -> None:
        use_id, name = block.get("id"), block.get("name")
        if not isinstance(use_id, str) or not isinstance(name, str):
            return
        kind = self._kinds.get(name)
        tool_input = block.get("input")
        if kind is None or not isinstance(tool_input, dict):
            self._pending[use_id] = None
            return
        path = _input_path(tool_input)
        self._pending[use_id] = _FileUse(use_id, name, kind, path, tool_input)
        if path is not None:
            self._note_id_path(use_id, path)

    def _note_id_path(self, use_id: str, path: str) -> None:
        paths = self._id_paths.setdefault(use_id, [])
        if path not in paths:
            paths.append(path)
        self._id_paths.move_to_end(use_id)
        while len(self._id_paths) > self.capacity * 8:
            self._id_paths.popitem(last=False)

    def _flag(self, use_id: str, code: FlagCode, detail: str) -> None:
        log.info("tool result %s not tied to a file (%s): %s", use_id, code, detail)
        self.flags.append(ReadFlag(use_id, code, detail))
        del self.flags[:-MAX_FLAGS]

    def _on_tool_result(self, block: Block) -> None:
        use_id = block.get("tool_use_id")
        if not isinstance(use_id, str):
            return
        if use_id not in self._pending:
            self._flag(use_id, "no-request", "no unanswered tool_use with this id was seen")
            return
        use = self._pending.pop(use_id)
        if use is None or use.path is None:
            return
        paths = self.paths_for(use_id)
        if len(paths) > 1:
            self._flag(use_id, "ambiguous-id", f"the id was used with several paths: {', '.join(paths)}")
            return
        if block.get("is_error"):
            self._note_error(use.path, result_text(block))
        elif use.kind == "read":
            if is_empty_result(block):
                return
            self._store_read(
                use.path,
                _seen_content(block),
                self._count(block),
                tool_use_id=use_id,
                offset=_int_or_none(use.input.get("offset")),
                limit=_int_or_none(use.input.get("limit")),
            )
        elif use.kind == "write":
            content = use.input.get("content")
            self.record_write(use.path, use_id, content if isinstance(content, str) else None)
        else:
            self.record_edit(use.path, use_id)

    def paths_for(self, tool_use_id: str) -> list[str]:
        """The request-side paths a tool_use id was used with; more than one means the id is ambiguous."""
        return list(self._id_paths.get(tool_use_id, ()))

    # -- recording -------------------------------------------------------------------------------------------

    def record_read(
        self,
        path: str,
        content: str,
        *,
        tool_use_id: str | None = None,
        start_line: int | None = None,
        num_lines: int | None = None,
        total_lines: int | None = None,
    ) -> ReadRecord:
        """Record a read by the server's own reader (``compact/readFile``, rehydration)."""
        if tool_use_id is not None:
            self._note_id_path(tool_use_id, path)
        tokens = self._count({"type": "text", "text": content})
        return self._store_read(
            path,
            content,
            tokens,
            tool_use_id=tool_use_id,
            start_line=start_line,
            num_lines=num_lines,
            total_lines=total_lines,
        )

    def _store_read(self, path: str, seen: str, tokens: int, **range_and_id: Any) -> ReadRecord:
        record = self._new_record(path, "read")
        record.content_hash = _sha256(seen)
        record.bytes = len(seen.encode("utf-8", "surrogatepass"))
        record.tokens = tokens
        for name, value in range_and_id.items():
            setattr(record, name, value)
        if record.tool_use_id is not None:
            record.history_ids = {record.tool_use_id}
        return self._put(record)

    def record_write(self, path: str, tool_use_id: str | None = None, content: str | None = None) -> ReadRecord:
        """The model wrote the whole file: it knows the content it wrote."""
        record = self._new_record(path, "write")
        record.written_at = record.read_at
        record.tool_use_id = tool_use_id
        record.history_ids = {tool_use_id} if tool_use_id else set()
        if content is not None:
            record.content_hash = _sha256(content)
            record.bytes = len(content.encode("utf-8", "surrogatepass"))
            record.tokens = self._count({"type": "text", "text": content})
        else:  # the written content is unknown to us, so we cannot vouch for the model's copy
            record.in_history = False
        return self._put(record)

    def record_edit(self, path: str, tool_use_id: str | None = None) -> ReadRecord:
        """The model edited the file: its copy is the earlier copy plus the edit, if it still has one."""
        earlier = self._records.get(self.resolve(path)[1])
        record = self._new_record(path, "edit")
        record.written_at = record.read_at
        record.tool_use_id = tool_use_id
        if earlier is not None:
            record.tokens, record.bytes = earlier.tokens, earlier.bytes
            record.offset, record.limit = earlier.offset, earlier.limit
            record.start_line, record.num_lines = earlier.start_line, earlier.num_lines
            record.total_lines = earlier.total_lines
            record.in_history = earlier.in_history
            record.history_ids = set(earlier.history_ids)
        else:
            record.in_history = False  # edited blind: the model never had the whole file
        if tool_use_id:
            record.history_ids.add(tool_use_id)
        return self._put(record)

    def _note_error(self, path: str, text: str) -> None:
        record = self._records.get(self.resolve(path)[1])
        if record is not None:
            record.error = (text.strip().splitlines() or ["error"])[0][:200]

    def _new_record(self, path: str, kind: RecordKind) -> ReadRecord:
        resolved, real = self.resolve(path)
        stat, known = _safe_stat(self._stat, real)
        doc = self.documents.get(real)
        return ReadRecord(
            path_as_given=path,
            resolved_path=resolved,
            realpath=real,
            kind=kind,
            read_at=self.clock(),
            mtime_ns=stat.mtime_ns if stat else None,
            size=stat.size if stat else None,
            inode=stat.inode if stat else None,
            display_path=display_path(resolved, self.cwd),
            freshness=Freshness.FRESH if stat else Freshness.DELETED if known else Freshness.UNKNOWN,
            open=doc is not None,
            dirty=doc is not None and doc.dirty,
        )

    def _put(self, record: ReadRecord) -> ReadRecord:
        self._records[record.realpath] = record
        self._records.move_to_end(record.realpath)
        while len(self._records) > self.capacity:
            evicted, _ = self._records.popitem(last=False)
            log.debug("read-file state full: forgot %s", evicted)
        return record

    # -- queries ---------------------------------------------------------------------------------------------

    def get(self, path: str) -> ReadRecord | None:
        return self._records.get(self._key(path))

    def __len__(self) -> int:
        return len(self._records)

    def freshness(self, path_or_record: str | ReadRecord) -> Freshness:
        """Compare the file's stat now with the record's (and remember the answer on the record)."""
        record = (
            path_or_record if isinstance(path_or_record, ReadRecord) else self._records.get(self._key(path_or_record))
        )
        if record is None:
            return Freshness.UNKNOWN
        record.freshness = self._compare_stat(record)
        return record.freshness

    def _compare_stat(self, record: ReadRecord) -> Freshness:
        """mtime, size or inode changed means stale (an atomic save replaces the inode)."""
        stat, known = _safe_stat(self._stat, record.realpath)
        if not known:
            return Freshness.UNKNOWN
        if stat is None:
            return Freshness.DELETED
        if record.mtime_ns is None:  # it did not exist when recorded: nothing to compare with
            return Freshness.UNKNOWN
        if (stat.mtime_ns, stat.size, stat.inode) != (record.mtime_ns, record.size, record.inode):
            return Freshness.STALE
        return Freshness.FRESH

    def refresh(self) -> dict[str, Freshness]:
        """Freshness of every record, by realpath."""
        return {key: self.freshness(record) for key, record in self._records.items()}

    def ranked(self) -> list[ReadRecord]:
        """Records newest first: the order rehydration considers them in."""
        return list(reversed(self._records.values()))

    # -- history -------------------------------------------------------------------------------------------

    def mark_evicted(self, tool_use_ids: Iterable[str]) -> list[str]:
        """Microcompaction cleared these results: the files they showed are no longer in history.

        Returns the realpaths whose copy left history.
        """
        ids = set(tool_use_ids)
        left: list[str] = []
        for key, record in self._records.items():
            if record.in_history and record.history_ids & ids:
                record.in_history = False
                left.append(key)
        return left

    def mark_all_out_of_history(self) -> None:
        """After full compaction the model has none of the files; records stay for rehydration."""
        for record in self._records.values():
            record.in_history = False

    def is_in_history(self, path: str) -> bool:
        record = self.get(path)
        return record is not None and record.in_history

    def can_skip_reread(self, path: str, offset: int | None = None, limit: int | None = None) -> bool:
        """Whether "file unchanged" is an honest answer: the model still has this range, and it is fresh."""
        record = self.get(path)
        return (
            record is not None
            and record.in_history
            and record.covers(offset, limit)
            and self.freshness(record) is Freshness.FRESH
        )

    # -- editor documents ----------------------------------------------------------------------------------

    def open_document(self, path: str, text: str, version: int) -> EditorDocument:
        return self.documents.open(path, text, version)

    def change_document(self, path: str, text: str, version: int) -> EditorDocument:
        return self.documents.change(path, text, version)

    def save_document(self, path: str) -> None:
        self.documents.save(path)

    def close_document(self, path: str) -> None:
        self.documents.close(path)

    def focus_document(self, path: str) -> None:
        self.documents.focus(path)

    def open_documents(self) -> list[EditorDocument]:
        """Open documents, most recently focused (or opened) first."""
        return self.documents.by_focus()

    def _sync_record(self, doc: EditorDocument, is_open: bool) -> None:
        """A record shows whether its file is open in the editor, and unsaved there."""
        record = self._records.get(doc.realpath)
        if record is not None:
            record.open, record.dirty = is_open, is_open and doc.dirty

    # -- status ----------------------------------------------------------------------------------------------

    def status(self) -> list[dict[str, Any]]:
        """``compact/status`` readFiles, freshly stat'ed: the model's reads newest first, then open documents
        it never read (kind "editor", never in history)."""
        self.refresh()
        entries = [record.to_wire() for record in self.ranked()]
        for doc in self.open_documents():
            if doc.realpath not in self._records:
                entry = ReadRecord(doc.path, doc.path, doc.realpath, "editor", doc.focused_at, in_history=False)
                entry.display_path, entry.open, entry.dirty = doc.display_path, True, doc.dirty
                entry.tokens = self._count({"type": "text", "text": doc.text})
                entries.append(entry.to_wire())
        return entries
