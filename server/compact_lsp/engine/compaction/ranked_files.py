"""The rehydration candidates best first, each made a ``RankedFile`` only when rehydration takes it.

``file_activities`` builds, scores and sorts every file the read-file state knows: a cost in what the state holds,
not in what comes back. With the recency ranker (the product's) the order is the read times' alone, so
``ranked_files`` hands the candidates out one by one in exactly the order and with exactly the scores
``file_activities`` gives them, at a cost in the candidates taken:

- the read-file state's records in time order (``ReadOrder.time_ordered``) and nothing pinned: its records as they
  are, newest first, with the few open documents the agent never read merged in by focus time; nothing is copied
  or sorted;
- the same with pinned files the agent read: they come first, each with its recency score, its place found by a
  C-level search of the records' keys (tens of nanoseconds a record passed);
- otherwise (a clock that went back, a pinned document or a pin never read): one pass over the read times and a
  sort of them (about half a microsecond a record), then one by one.

Any other ranker (the evaluation's) scores every file: ``file_activities``, handed out the same way.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from compact_lsp.engine.compaction.file_ranking import (
    ActivityMaker,
    RankedFile,
    Ranker,
    RecencyRanker,
    exclusion,
    file_activities,
    history_uses,
)
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.editor_documents import EditorDocument
from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import real_path

_Raw = tuple[int, ReadRecord | None, EditorDocument | None, str, bool]
"""A candidate not yet made: its recency rank, record or document (neither: a pin never seen), realpath, pinned."""


@dataclass(eq=False)
class Entry:
    """A candidate as rehydration first sees it: its size when last read, before anything is built for it."""

    estimate: int
    """Tokens when last read (0 when the agent never read it: an open document, a pin)."""
    unread: bool
    """No record: an open document or a pin the agent never read."""
    raw: _Raw | RankedFile


class RankedFiles:
    """Every candidate, best first: ``next_entry`` is cheap, ``make`` builds the ``RankedFile`` of an entry."""

    def __init__(
        self,
        entries: Iterator[Entry],
        *,
        total: int,
        unread: int,
        maker: ActivityMaker,
        denied: set[str],
        state: ReadFileState,
    ) -> None:
        self.total = total
        """Every candidate, taken or not."""
        self._entries = entries
        self._unread = unread  # candidates without a record (open documents, pins) not handed out yet
        self._maker = maker
        self._denied = denied
        self._state = state

    def next_entry(self) -> Entry | None:
        entry = next(self._entries, None)
        if entry is not None and entry.unread:
            self._unread -= 1
        return entry

    def may_fit(self, tokens: int) -> bool:
        """Whether a candidate not handed out yet may be of at most ``tokens`` tokens when last read (False is sure)."""
        return self._unread > 0 or self._state.order.may_hold(tokens)

    def make(self, entry: Entry) -> RankedFile:
        if isinstance(entry.raw, RankedFile):
            return entry.raw
        rank, record, document, real, pinned = entry.raw
        maker = self._maker
        act = maker.of_record(record) if record else maker.of_document(document) if document else maker.of_pin(real)
        return RankedFile(act, 1.0 / (1 + rank), exclusion(act, maker.real_roots, self._denied), pinned)


def ranked_files(
    read_state: ReadFileState,
    workspace_roots: Sequence[str],
    *,
    denied_paths: frozenset[str] = frozenset(),
    history: Sequence[Message] = (),
    ranker: Ranker,
    pinned: Sequence[str] = (),
) -> RankedFiles:
    """What ``file_activities`` answers, handed out one by one (see the module doc)."""
    uses = history_uses(read_state, history)
    maker = ActivityMaker.of(read_state, workspace_roots, uses)
    denied = {real_path(p) for p in denied_paths}
    if not isinstance(ranker, RecencyRanker):
        ranked = file_activities(
            read_state, workspace_roots, denied_paths=denied_paths, history=history, ranker=ranker, pinned=pinned
        )
        unread = sum(1 for r in ranked if r.activity.record is None)
        entries = (Entry(_estimate(r.activity.record), r.activity.record is None, r) for r in ranked)
        return RankedFiles(entries, total=len(ranked), unread=unread, maker=maker, denied=denied, state=read_state)
    # the read-file state holds reads, writes and edits only ("editor" entries exist in its status alone)
    loose = [doc for doc in maker.documents if read_state.by_realpath(doc.realpath) is None]
    known = {doc.realpath for doc in loose}
    pins = [real for real in dict.fromkeys(pinned) if real not in known and read_state.by_realpath(real) is None]
    total = len(read_state) + len(loose) + len(pins)
    if read_state.order.time_ordered and not pinned:
        raws: Iterator[_Raw] = _merged(read_state.newest_first(), loose)
    elif read_state.order.time_ordered and all(read_state.by_realpath(real) is not None for real in pinned):
        raws = _pinned_records_first(read_state, loose, pinned)
    else:
        raws = _sorted(read_state, loose, pins, pinned)
    entries = (Entry(_estimate(raw[1]), raw[1] is None, raw) for raw in raws)
    unread = len(loose) + len(pins)
    return RankedFiles(entries, total=total, unread=unread, maker=maker, denied=denied, state=read_state)


def _estimate(record: ReadRecord | None) -> int:
    return record.tokens if record is not None else 0


def _merged(records: Iterator[ReadRecord], loose: list[EditorDocument]) -> Iterator[_Raw]:
    """Records newest first (already in time order) with the documents never read merged in: a stable sort of
    records then documents by time puts a document before a record only when it is strictly newer."""
    docs = sorted(loose, key=lambda d: -d.focused_at)
    rank, i = 0, 0
    for record in records:
        while i < len(docs) and docs[i].focused_at > record.read_at:
            yield rank, None, docs[i], docs[i].realpath, False
            rank, i = rank + 1, i + 1
        yield rank, record, None, record.realpath, False
        rank += 1
    for doc in docs[i:]:
        yield rank, None, doc, doc.realpath, False
        rank += 1


def _pinned_records_first(
    read_state: ReadFileState, loose: list[EditorDocument], pinned: Sequence[str]
) -> Iterator[_Raw]:
    """Pinned files the agent read first (in pin order), each with its rank in ``_merged``: its place among the
    records (a C-level search of their keys) plus the documents strictly newer; then ``_merged`` without them."""
    pin_order = {real: i for i, real in enumerate(pinned)}
    first = sorted(pin_order, key=pin_order.__getitem__)
    for real in first:
        record = read_state.by_realpath(real)
        assert record is not None  # checked by the caller
        place = operator.indexOf(read_state.realpaths_newest_first(), real)
        yield place + sum(1 for d in loose if d.focused_at > record.read_at), record, None, real, True
    skip = set(first)
    yield from (raw for raw in _merged(read_state.newest_first(), loose) if raw[3] not in skip)


def _sorted(
    read_state: ReadFileState, loose: list[EditorDocument], pins: list[str], pinned: Sequence[str]
) -> Iterator[_Raw]:
    """The recency ranker's own stable sort, on the read times alone; the pinned first, in pin order."""
    records = read_state.ranked()
    keys = [-r.read_at for r in records] + [-d.focused_at for d in loose] + [-0.0] * len(pins)
    order = sorted(range(len(keys)), key=keys.__getitem__)

    def raw(rank: int, index: int, is_pinned: bool) -> _Raw:
        if index < len(records):
            return rank, records[index], None, records[index].realpath, is_pinned
        index -= len(records)
        if index < len(loose):
            return rank, None, loose[index], loose[index].realpath, is_pinned
        return rank, None, None, pins[index - len(loose)], is_pinned

    pin_order = {real: i for i, real in enumerate(pinned)}
    at = {r.realpath: i for i, r in enumerate(records) if r.realpath in pin_order} if pin_order else {}
    at.update({d.realpath: len(records) + i for i, d in enumerate(loose) if d.realpath in pin_order})
    at.update({real: len(records) + len(loose) + i for i, real in enumerate(pins)})
    first = [at[real] for real in sorted(pin_order, key=pin_order.__getitem__)]
    for index in first:
        yield raw(order.index(index), index, True)
    skip = set(first)
    for rank, index in enumerate(order):
        if index not in skip:
            yield raw(rank, index, False)
