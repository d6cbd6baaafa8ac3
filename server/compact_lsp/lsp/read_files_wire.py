"""``readFiles`` of a published ``compact/status``, each entry kept with its JSON until its record changes.

With a thousand files read, building and encoding every entry after every append was most of what an append cost
(issue 28: the 50-session load run went quadratic). The read-file state notes which records changed
(engine/files/shown_changes.py); only their entries are built and encoded again, and the list is joined from the
kept pieces in the state's order. Files no watcher follows are stat'ed again each time (their change would go
unseen otherwise); a followed file's change event re-stats it (lsp/work.py).
"""

from __future__ import annotations

import json
from collections.abc import Set
from typing import Any

from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.read_status import editor_entries, restat_unwatched
from compact_lsp.lsp.answers import read_file_answer


class ReadFilesWire:
    """One session's ``readFiles`` entries as answered last, by real path, with each one's JSON."""

    def __init__(self) -> None:
        self._state: ReadFileState | None = None
        self._entries: dict[str, tuple[dict[str, Any], bytes]] = {}

    def take(self, state: ReadFileState, watched: Set[str]) -> tuple[list[dict[str, Any]], bytes]:
        """The entries now and their JSON array; under the session's lock, as the status is published."""
        restat_unwatched(state, watched)
        changed = state.shown.take()
        if changed is None or state is not self._state:  # a first look, or another state (the session reloaded)
            self._state, self._entries = state, {}
        else:
            for realpath in changed:
                self._entries.pop(realpath, None)
        answers: list[dict[str, Any]] = []
        parts: list[bytes] = []
        for record in state.newest_first():
            kept = self._entries.get(record.realpath)
            if kept is None:
                answer = read_file_answer(record)
                kept = self._entries[record.realpath] = (answer, json.dumps(answer).encode())
            answers.append(kept[0])
            parts.append(kept[1])
        for entry in editor_entries(state):  # a few open documents: built each time
            answer = read_file_answer(entry)
            answers.append(answer)
            parts.append(json.dumps(answer).encode())
        return answers, b"[" + b",".join(parts) + b"]"
