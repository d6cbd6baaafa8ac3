"""A published status's ``readFiles`` kept between publishes (read_files_wire.py) is the list a status measured
afresh gives: whatever the agent, the editor and the disk did in between."""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.engine.files.test_read_state import TickingClock, WordCounter

from compact_lsp.engine.files.read_record import FileStat, Freshness
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.read_status import status_records
from compact_lsp.lsp.protocol.answers import read_file_answer
from compact_lsp.lsp.protocol.read_files_wire import ReadFilesWire

PATHS = [f"/w/src/m{i}.py" for i in range(6)]

OPS = st.sampled_from(
    ["read", "write", "edit", "evict", "all_out", "open", "change", "save", "close", "focus", "touch", "delete", "take"]
)


class Disk:
    """A fake file system: path -> stat, changed by the test."""

    def __init__(self) -> None:
        self.files: dict[str, FileStat] = {p: FileStat(1, 10, i) for i, p in enumerate(PATHS)}

    def stat(self, path: str) -> FileStat | None:
        return self.files.get(path)


def _state(disk: Disk) -> ReadFileState:
    return ReadFileState(
        capacity=4, clock=TickingClock(), cwd="/w", counter=WordCounter(), stat=disk.stat, realpath=os.path.normpath
    )


def _apply(state: ReadFileState, disk: Disk, op: str, path: str, step: int, watched: bool) -> None:
    if op == "read":
        state.record_read(path, f"text {step}", tool_use_id=f"toolu_{step}", start_line=1 + step % 2, num_lines=3)
    elif op == "write":
        state.record_write(path, f"toolu_{step}", f"written {step}")
    elif op == "edit":
        state.record_edit(path, f"toolu_{step}")
    elif op == "evict":
        state.mark_evicted([f"toolu_{step - 1}", f"toolu_{step - 3}"])
    elif op == "all_out":
        state.mark_all_out_of_history()
    elif op == "open":
        state.open_document(path, f"doc {step}", step)
    elif op == "change":
        state.change_document(path, f"doc changed {step}", step)
    elif op in ("save", "close", "focus"):
        getattr(state, f"{op}_document")(path)
    elif op in ("touch", "delete"):
        if op == "touch":
            disk.files[path] = FileStat(step + 2, 10 + step, PATHS.index(path))
        else:
            disk.files.pop(path, None)
        if watched:  # the watcher's event: lsp/work/in_session.py re-stats the file it names
            state.freshness(path)


def _as_measured(state: ReadFileState) -> list[dict[str, Any]]:
    return [read_file_answer(r) for r in status_records(state)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(OPS, st.sampled_from(PATHS)), max_size=40), st.booleans())
def test_kept_entries_are_what_a_fresh_status_lists(ops: list[tuple[str, str]], watched: bool) -> None:
    disk = Disk()
    state, wire = _state(disk), ReadFilesWire()
    for step, (op, path) in enumerate(ops, start=1):
        _apply(state, disk, op, path, step, watched)
        if op == "take" or step == len(ops):
            covered = frozenset(state.realpaths()) if watched else frozenset()
            answers, encoded = wire.take(state, covered)
            expected = _as_measured(state)
            assert answers == expected
            assert json.loads(encoded) == expected


def test_a_watched_file_is_stat_again_only_on_its_change_event() -> None:
    disk = Disk()
    state, wire = _state(disk), ReadFilesWire()
    state.record_read(PATHS[0], "x = 1")
    covered = frozenset(state.realpaths())
    assert wire.take(state, covered)[0][0]["freshness"] == "fresh"
    disk.files[PATHS[0]] = FileStat(99, 11, 0)
    assert wire.take(state, covered)[0][0]["freshness"] == "fresh"  # no event yet: not stat'ed
    assert state.freshness(PATHS[0]) is Freshness.STALE  # the event
    assert wire.take(state, covered)[0][0]["freshness"] == "stale"


def test_a_file_no_watcher_follows_is_stat_again_at_every_publish() -> None:
    disk = Disk()
    state, wire = _state(disk), ReadFilesWire()
    state.record_read(PATHS[1], "y = 2")
    assert wire.take(state, frozenset())[0][0]["freshness"] == "fresh"
    del disk.files[PATHS[1]]
    assert wire.take(state, frozenset())[0][0]["freshness"] == "deleted"
