"""Read-file state: which files the model has seen, whether they changed since, and whether it still has them.

Reads, writes and edits are learnt from the conversation (``observe``; what counts: read_outcome.py) or told by
the server's own reader (``record_read``). A tool result is tied to its path only through its request's tool_use
id; an id used with several paths, or a result whose request cannot be found, is flagged and never guessed
(file_tool_calls.py). Records (``ReadRecord``) are keyed by realpath and bounded (least recent evicted first).
``in_history``: once microcompaction clears a read, or compaction drops the history, the model no longer has that
content, so ``can_skip_reread`` must say False even though the file is unchanged.
"""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, KeysView, Sequence
from typing import Any

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, result_text
from compact_lsp.engine.conversation.tokens import TiktokenCounter, TokenCounter
from compact_lsp.engine.files.editor_documents import EditorDocument, EditorDocuments, display_path
from compact_lsp.engine.files.file_tool_calls import FileToolCalls, ReadFlag
from compact_lsp.engine.files.read_order import ReadOrder
from compact_lsp.engine.files.read_outcome import shows_content, succeeded
from compact_lsp.engine.files.read_record import (
    Freshness,
    ReadRecord,
    RecordKind,
    StatFn,
    compare_stat,
    content_hash,
    int_or_none,
    os_stat,
    safe_stat,
    seen_content,
    shared,
)
from compact_lsp.engine.files.shown_changes import ShownChanges
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.tool_names import DEFAULT_EDIT_TOOLS, DEFAULT_READ_TOOLS, DEFAULT_WRITE_TOOLS

log = logging.getLogger(__name__)


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
        realpath: Callable[[str], str] = real_path,
    ) -> None:
        if capacity < 1:
            raise ValueError("read-file state capacity must be at least 1")
        self.capacity = capacity
        self.clock = clock
        self.cwd = cwd or os.getcwd()
        self._realpath = realpath
        """``real_path``, or a cache of it where the disk is taken as it is at one instant (the hook)."""
        kinds: dict[str, RecordKind] = {name: "edit" for name in edit_tools}
        kinds.update({name: "write" for name in write_tools})
        kinds.update({name: "read" for name in read_tools})
        self._calls = FileToolCalls(kinds, max_ids=capacity * 8, same_file=lambda path: self.resolve(path)[1])
        self._counter = counter
        self._stat = stat
        self._records: OrderedDict[str, ReadRecord] = OrderedDict()
        self.order = ReadOrder()
        """Time order and size classes of the records (read_order.py): rehydration stops without a full pass."""
        self.shown = ShownChanges()
        """The records whose status entries changed since the published status last looked (shown_changes.py)."""
        self.documents = EditorDocuments(
            self.resolve, clock, lambda resolved: display_path(resolved, self.cwd), self._sync_record
        )
        """The documents open in the editor; the ``*_document`` methods below delegate to it."""
        self._unsettled: dict[int, tuple[ReadRecord, Block]] | None = None
        """During ``replay``: the reads stored without their hash, size and count yet, by id of their record."""
        self._hash: Callable[[str], str | None] = content_hash

    # -- paths ---------------------------------------------------------------------------------------------

    def resolve(self, path: str, realpath: Callable[[str], str] | None = None) -> tuple[str, str]:
        """(resolved, realpath): absolute against ``cwd``, ``~`` expanded; realpath (or ``realpath``) resolves."""
        joined = os.path.join(self.cwd, os.path.expanduser(path))
        # realpath gets the joined path: ".." after a symlink means the link target's parent, not normpath's. Equal
        # paths come back as one string (``shared``): most often all three are the same.
        resolved = shared(os.path.normpath(joined), path)
        return resolved, shared((realpath or self._realpath)(joined), resolved)

    def _key(self, path_or_record: str | ReadRecord) -> str:
        if isinstance(path_or_record, ReadRecord):
            return path_or_record.realpath
        return self.resolve(path_or_record)[1]

    def count(self, block: Block) -> int:
        if self._counter is None:
            self._counter = TiktokenCounter()
        return self._counter.count_block(block)

    # -- learning from the conversation ---------------------------------------------------------------------

    def observe(self, messages: Sequence[Message], start: int = 0) -> list[tuple[ReadRecord, Block]]:
        """Learn reads, writes and edits from ``messages[start:]``; earlier messages must have been observed.

        Unanswered tool_use ids are kept, so observing only the appended messages costs only those. Returns the
        reads stored, each with the tool_result that showed it (what the model saw is kept from it).
        """
        reads: list[tuple[ReadRecord, Block]] = []
        for message in messages[start:]:
            role = message.get("role")
            for block in blocks_of(message):
                kind = block.get("type")
                if role == "assistant" and kind == "tool_use":
                    self._calls.request(block)
                elif role == "user" and kind == "tool_result":
                    record = self._on_tool_result(block)
                    if record is not None:
                        reads.append((record, block))
        return reads

    def _on_tool_result(self, block: Block) -> ReadRecord | None:
        """Learn from one result; the record when it stored a read."""
        use = self._calls.answer(block)
        if use is None or use.path is None:
            return None
        use_id = use.tool_use_id
        if not succeeded(block):
            self._note_error(use.path, result_text(block), use.kind)
        elif use.kind == "read" and not shows_content(block):
            return None
        elif use.kind == "read":
            later = self._unsettled is not None
            record = self._store_read(
                use.path,
                "" if later else seen_content(block),
                0 if later else self.count(block),
                tool_use_id=use_id,
                offset=int_or_none(use.input.get("offset")),
                limit=int_or_none(use.input.get("limit")),
            )
            if self._unsettled is not None:
                self._unsettled[id(record)] = (record, block)
            return record
        elif use.kind == "write":
            content = use.input.get("content")
            self.record_write(use.path, use_id, content if isinstance(content, str) else None)
        else:
            self.record_edit(use.path, use_id)
        return None

    def replay(self, messages: Sequence[Message], *, hashes: bool = True) -> None:
        """``observe`` for a state learnt once from a whole conversation (the hooks), with the same records: what a
        read showed is hashed, sized and counted only if its record is still there at the end (not 30 times).
        ``hashes=False``: no hash at all (``content_hash`` None), for a state no change notice will ask (the hooks:
        nor is OpenSSL loaded)."""
        self._unsettled, self._hash = {}, content_hash if hashes else (lambda text: None)
        try:
            self.observe(messages)
        finally:
            unsettled, self._unsettled = self._unsettled, None
            for record, block in unsettled.values():
                if self._records.get(record.realpath) is record:  # an edit's size and count only: no hash
                    self._settle(record, block, hashed=record.kind != "edit")
            self._hash = content_hash

    def _settle(self, record: ReadRecord, block: Block, *, hashed: bool = True) -> None:
        """A replayed read's hash (unless not ``hashed``), size and count, as ``_store_read`` would have set them."""
        seen = seen_content(block)
        if hashed:
            record.content_hash = self._hash(seen)
        record.bytes = len(seen.encode("utf-8", "surrogatepass"))
        before, record.tokens = record.tokens, self.count(block)
        self.order.resized(before, record.tokens)
        self.shown.touch(record.realpath)

    def paths_for(self, tool_use_id: str) -> list[str]:
        """The request-side paths a tool_use id was used with; more than one means the id is ambiguous."""
        return self._calls.paths_for(tool_use_id)

    @property
    def flags(self) -> list[ReadFlag]:
        """Tool results that could not be tied to exactly one path, oldest first (bounded)."""
        return self._calls.flags

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
            self._calls.note_id_path(tool_use_id, path)
        tokens = self.count({"type": "text", "text": content})
        return self._store_read(path, content, tokens, tool_use_id=tool_use_id, start_line=start_line,
                                num_lines=num_lines, total_lines=total_lines)  # fmt: skip

    def _store_read(self, path: str, seen: str, tokens: int, **range_and_id: Any) -> ReadRecord:
        record = self._new_record(path, "read")
        record.content_hash = self._hash(seen)
        record.bytes, record.tokens = len(seen.encode("utf-8", "surrogatepass")), tokens
        for name, value in range_and_id.items():
            setattr(record, name, value)
        if record.tool_use_id is not None:
            record.history_ids = (record.tool_use_id,)
        return self._put(record)

    def record_write(self, path: str, tool_use_id: str | None = None, content: str | None = None) -> ReadRecord:
        """The model wrote the whole file: it knows the content it wrote."""
        record = self._new_record(path, "write")
        record.written_at = record.read_at
        record.tool_use_id, record.history_ids = tool_use_id, (tool_use_id,) if tool_use_id else ()
        if content is not None:
            record.content_hash = self._hash(content)
            record.bytes = len(content.encode("utf-8", "surrogatepass"))
            record.tokens = self.count({"type": "text", "text": content})
        else:  # the written content is unknown to us, so we cannot vouch for the model's copy
            record.in_history = False
        return self._put(record)

    def record_edit(self, path: str, tool_use_id: str | None = None) -> ReadRecord:
        """The model edited the file: its copy is the earlier copy plus the edit, if it still has one."""
        earlier = self._records.get(self.resolve(path)[1])
        unsettled = self._unsettled.pop(id(earlier), None) if earlier is not None and self._unsettled else None
        record = self._new_record(path, "edit")
        record.written_at = record.read_at
        record.tool_use_id = tool_use_id
        if earlier is not None:
            record.tokens, record.bytes = earlier.tokens, earlier.bytes
            record.offset, record.limit = earlier.offset, earlier.limit
            record.start_line, record.num_lines = earlier.start_line, earlier.num_lines
            record.total_lines, record.in_history = earlier.total_lines, earlier.in_history
            record.history_ids = earlier.history_ids
        else:
            record.in_history = False  # edited blind: the model never had the whole file
        if tool_use_id and tool_use_id not in record.history_ids:
            record.history_ids += (tool_use_id,)
        if unsettled is not None and self._unsettled is not None:  # the uncounted read passes on: counted at the end
            self._unsettled[id(record)] = (record, unsettled[1])
        return self._put(record)

    def _note_error(self, path: str, text: str, kind: RecordKind) -> None:
        record = self._records.get(self.resolve(path)[1])
        if record is not None:
            record.error = (text.strip().splitlines() or ["error"])[0][:200]
            record.error_kind = kind

    def _new_record(self, path: str, kind: RecordKind) -> ReadRecord:
        resolved, real = self.resolve(path)
        stat, known = safe_stat(self._stat, real)
        doc = self.documents.get(real)
        same = self._records.get(real)  # the same path put again: its display path is known (cwd never changes)
        shown_as = same.display_path if same is not None and same.resolved_path == resolved else None
        return ReadRecord(
            path_as_given=path,
            resolved_path=resolved,
            realpath=real,
            kind=kind,
            read_at=self.clock(),
            mtime_ns=stat.mtime_ns if stat else None,
            size=stat.size if stat else None,
            inode=stat.inode if stat else None,
            display_path=shown_as if shown_as is not None else shared(display_path(resolved, self.cwd), path),
            freshness=Freshness.FRESH if stat else Freshness.DELETED if known else Freshness.UNKNOWN,
            open=doc is not None,
            dirty=doc is not None and doc.dirty,
        )

    def _put(self, record: ReadRecord) -> ReadRecord:
        self.order.removed(self._records.pop(record.realpath, None))  # a record replaced, if any
        self._records[record.realpath] = record
        self.order.added(record)
        self.shown.put(record.realpath)
        while len(self._records) > self.capacity:
            evicted, forgotten = self._records.popitem(last=False)
            self.order.removed(forgotten)
            self.shown.remove(evicted)
            log.debug("read-file state full: forgot %s", evicted)
        return record

    # -- queries ---------------------------------------------------------------------------------------------

    def get(self, path: str) -> ReadRecord | None:
        return self._records.get(self._key(path))

    def by_realpath(self, realpath: str) -> ReadRecord | None:
        return self._records.get(realpath)

    def __len__(self) -> int:
        return len(self._records)

    def freshness(self, path_or_record: str | ReadRecord) -> Freshness:
        """Compare the file's stat now with the record's (and remember the answer on the record)."""
        record = (
            path_or_record if isinstance(path_or_record, ReadRecord) else self._records.get(self._key(path_or_record))
        )
        if record is None:
            return Freshness.UNKNOWN
        now = compare_stat(self._stat, record)
        if now is not record.freshness:
            record.freshness = now
            self.shown.touch(record.realpath)
        return now

    def refresh(self) -> dict[str, Freshness]:
        """Freshness of every record, by realpath."""
        # a snapshot first (one C-level copy, no Python code in between): the stat calls below release the GIL, and
        # another thread's read may move or evict records meanwhile (an unlocked status during an append)
        return {key: self.freshness(record) for key, record in tuple(self._records.items())}

    def ranked(self) -> list[ReadRecord]:
        """Records newest first: the order rehydration considers them in."""
        return list(reversed(tuple(self._records.values())))

    def newest_first(self) -> Iterator[ReadRecord]:
        """``ranked()`` one by one, copying nothing (under the session's lock: a change would end it, RuntimeError)."""
        return reversed(self._records.values())

    def realpaths_newest_first(self) -> Iterator[str]:
        return reversed(self._records)

    def realpaths(self) -> KeysView[str]:
        return self._records.keys()

    # -- history -------------------------------------------------------------------------------------------

    def mark_evicted(self, tool_use_ids: Iterable[str]) -> list[str]:
        """Microcompaction cleared these results: the files they showed are no longer in history.

        Returns the realpaths whose copy left history.
        """
        ids = set(tool_use_ids)
        left: list[str] = []
        for key, record in tuple(self._records.items()):
            if record.in_history and not ids.isdisjoint(record.history_ids):
                record.in_history = False
                left.append(key)
                self.shown.touch(key)
        return left

    def mark_all_out_of_history(self) -> None:
        """After full compaction the model has none of the files; records stay for rehydration."""
        for record in tuple(self._records.values()):
            record.in_history = False
        self.shown.touch_all()

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
            self.shown.touch(record.realpath)
