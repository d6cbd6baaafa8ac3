"""What ``compact/status`` answers without waiting: each session's status, published by the change that made it.

The invariant, kept here and nowhere else (tests/lsp/sessions/test_snapshots.py holds it with hypothesis):

    When ``at_once`` answers for a session, the answer is what measuring the session afresh gives now; while
    a change holds the session's lock, what it gave when the last change completed; while a full compaction
    holds the session, that answer marked ``compacting``.

How it is kept: only ``publish`` writes a snapshot, and it is called right after a change, in the change's thread
and under the session's lock (lsp/work/in_session.py, a followed transcript's update in
lsp/following/transcript_follow.py, another server's records in lsp/work/journal_follow.py), or on the loop while
the lock is free (settings replaced, lsp/sessions/registry.py). Each snapshot is stamped with what it describes
(``SessionSlot.stamp``: the session, its revision, a followed transcript's updates, its settings and the lock's
holds). ``at_once`` answers with a snapshot whose stamp is the slot's now, or, while the lock is held, one of the
same session and settings; anything else (nobody measured the session since it last changed, or settings were
replaced while a change held it) is measured by the caller, under the lock.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.session.session_status import status_of
from compact_lsp.lsp.protocol.answers import status_answer

if TYPE_CHECKING:
    from compact_lsp.lsp.sessions.session_slot import SessionSlot, Snapshot


def status_wire(slot: SessionSlot, *, read_files: bool = True) -> dict[str, Any]:
    """``compact/status`` for the slot, measured now (under its lock, or on the loop while nothing changes it);
    without ``read_files``, its ``readFiles`` is left empty."""
    followed = slot.followed
    status = followed.status(read_files) if followed is not None else status_of(slot.session, read_files=read_files)
    return status_answer(status)


def publish(slot: SessionSlot) -> dict[str, Any]:
    """Measure the slot's status and publish it, with its JSON; call right after a change, under the session's
    lock (or on the loop while it is free). The JSON is made here, once a change, not per request. The read files'
    entries are kept from the last publish but for those that changed (lsp/protocol/read_files_wire.py): with a
    thousand of them, an append would cost more the more files its session had read."""
    status = status_wire(slot, read_files=False)
    del status["readFiles"]
    files, files_json = slot.read_files.take(slot.session.read_state, slot.covered)
    encoded = b'{"readFiles":' + files_json + b"," + json.dumps(status).encode()[1:]
    status["readFiles"] = files
    slot.status_snapshot = (slot.stamp(), status, encoded)
    return status


def republish(slot: SessionSlot) -> None:
    """The slot's settings were replaced (on the loop): publish at once when no change holds the session, so a
    status asked right after shows the new thresholds; a change that holds it publishes when it is done."""
    if not slot.lock.locked():
        publish(slot)


def _answering(slot: SessionSlot) -> Snapshot | None:
    snapshot = slot.status_snapshot
    if snapshot is None:
        return None
    stamp, now = snapshot[0], slot.stamp()
    if stamp == now or (slot.lock.locked() and stamp.session == now.session and stamp.settings == now.settings):
        return snapshot
    return None


def at_once(slot: SessionSlot) -> dict[str, Any] | None:
    """The status to answer with now without waiting for the session's lock, or None: measure it."""
    snapshot = _answering(slot)
    if snapshot is None:
        return None
    return {**snapshot[1], "compacting": True} if slot.session.compacting else snapshot[1]


def at_once_json(slot: SessionSlot) -> bytes | None:
    """``at_once``'s answer as the JSON made when it was published (None while it compacts: no such JSON)."""
    snapshot = _answering(slot)
    return None if snapshot is None or slot.session.compacting else snapshot[2]
