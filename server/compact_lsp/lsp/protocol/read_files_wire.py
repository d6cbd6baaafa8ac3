"""``readFiles`` of a published ``compact/status``, each entry kept with its JSON until its record changes.

With a thousand files read, building and encoding every entry after every append was most of what an append cost
(issue 28: the 50-session load run went quadratic). The read-file state notes which records it put, changed or
evicted (engine/files/shown_changes.py); only their entries are built and encoded again, a put one moved to the
newest end, and the list is the kept entries in the state's order, copied and joined whole (no Python step per
file). Files no watcher follows are stat'ed again each time (their change would go unseen otherwise); a followed
file's change event re-stats it (lsp/work/in_session.py).
"""

from __future__ import annotations

import json
from collections.abc import Set
from typing import Any

from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.read_status import editor_entries, restat_unwatched
from compact_lsp.engine.files.shown_changes import Changes
from compact_lsp.lsp.protocol.answers import read_file_answer


class ReadFilesWire:
    """One session's ``readFiles`` entries as answered last and their JSON, by real path, oldest first (the state's
    own order)."""

    def __init__(self) -> None:
        self._state: ReadFileState | None = None
        self._answers: dict[str, dict[str, Any]] = {}
        self._json: dict[str, bytes] = {}
        """Both in the state's order: a dict keeps its keys in the order they were put (a put one is popped and put
        again, to the end), and copies its values out reversed without a Python step per entry."""

    def take(self, state: ReadFileState, watched: Set[str]) -> tuple[list[dict[str, Any]], bytes]:
        """The entries now, newest first, and their JSON array; under the session's lock, as the status is
        published."""
        restat_unwatched(state, watched)
        changes = state.shown.take()
        if changes is None or state is not self._state:  # a first look, or another state (the session reloaded)
            self._rebuild(state)
        else:
            self._apply(state, changes)
            if len(self._answers) != len(state):  # cannot happen; a wrong order must not be answered if it does
                self._rebuild(state)
        answers = list(reversed(self._answers.values()))
        parts = list(reversed(self._json.values()))
        for entry in editor_entries(state):  # a few open documents: built each time
            answer = read_file_answer(entry)
            answers.append(answer)
            parts.append(json.dumps(answer).encode())
        return answers, b"[" + b",".join(parts) + b"]"

    def _rebuild(self, state: ReadFileState) -> None:
        self._state = state
        self._answers, self._json = {}, {}
        for record in reversed(state.ranked()):  # oldest first, the order kept
            self._keep(record)

    def _apply(self, state: ReadFileState, changes: Changes) -> None:
        for realpath in changes.removed:
            self._answers.pop(realpath, None)
            self._json.pop(realpath, None)
        for realpath in changes.put:  # oldest put first: each goes to the newest end
            self._answers.pop(realpath, None)
            self._json.pop(realpath, None)
            record = state.by_realpath(realpath)
            if record is not None:
                self._keep(record)
        for realpath in changes.touched - changes.put.keys():
            record = state.by_realpath(realpath)
            if record is not None and realpath in self._answers:
                self._keep(record)  # in place: a key already there keeps its position

    def _keep(self, record: ReadRecord) -> None:
        answer = read_file_answer(record)
        self._answers[record.realpath] = answer
        self._json[record.realpath] = json.dumps(answer).encode()
