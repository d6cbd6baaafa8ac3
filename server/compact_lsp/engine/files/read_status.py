"""The read-file state as ``compact/status`` lists it: the model's reads newest first, then the documents open in
the editor that it never read.

``status_records`` stats every record first, as a status measured on request must. A published status stats only
what no watcher follows (``restat_unwatched``): for a followed file the watcher's change event re-stats it
(lsp/work/in_session.py), so an append does not cost a ``stat`` for every file the session has read.
"""

from __future__ import annotations

from collections.abc import Set

from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.files.read_state import ReadFileState


def status_records(state: ReadFileState) -> list[ReadRecord]:
    """Every entry, freshly stat'ed."""
    state.refresh()
    return [*state.newest_first(), *editor_entries(state)]


def editor_entries(state: ReadFileState) -> list[ReadRecord]:
    """Open documents the model never read (kind "editor", never in history), most recently focused first."""
    entries = []
    for doc in state.open_documents():
        if state.by_realpath(doc.realpath) is None:
            entry = ReadRecord(doc.path, doc.path, doc.realpath, "editor", doc.focused_at, in_history=False)
            entry.display_path, entry.open, entry.dirty = doc.display_path, True, doc.dirty
            entry.tokens = state.count({"type": "text", "text": doc.text})  # the counter caches it by text
            entries.append(entry)
    return entries


def restat_unwatched(state: ReadFileState, watched: Set[str]) -> None:
    """Stat again every record whose file is not in ``watched`` (real paths a watcher reports changes of)."""
    for realpath in state.realpaths() - watched:
        record = state.by_realpath(realpath)
        if record is not None:
            state.freshness(record)
