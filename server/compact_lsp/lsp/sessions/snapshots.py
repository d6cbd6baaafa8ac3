"""What ``compact/status`` and ``compact/sessions`` answer while a session is busy: a snapshot published after
each change.

Every change runs in a worker thread under the session's lock (lsp/work/in_session.py, a followed transcript's or
rollout's update in lsp/following/transcript_follow.py); right after it, in the same thread and under the same
lock, the session's status is taken and published on its slot with the revision it describes. A status request
then never waits: when the
snapshot describes the session as it is (same revision, and nobody held the lock since), or the session is
busy (its lock is held: the answer is the last change that completed), the snapshot is the answer; only a
session nobody measured since it last changed (an agent turn, an editor's document) is measured afresh, under
its lock.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.session.session_status import status_of
from compact_lsp.lsp.protocol.answers import status_answer

if TYPE_CHECKING:
    from compact_lsp.lsp.sessions.session_slot import SessionSlot


def status_wire(slot: SessionSlot, *, read_files: bool = True) -> dict[str, Any]:
    """``compact/status`` for the slot, measured now (under its lock, or on the loop while it compacts); without
    ``read_files``, its ``readFiles`` is left empty."""
    followed = slot.followed
    status = followed.status(read_files) if followed is not None else status_of(slot.session, read_files=read_files)
    return status_answer(status)


def publish(slot: SessionSlot) -> dict[str, Any]:
    """Measure the slot's status and publish it, with its JSON; call under the session's lock, right after a
    change. The JSON is made here, in the engine thread, not on the loop per request: with 200 read files a
    status is 42 kB and 1 ms of ``json.dumps`` (1,000 files: 211 kB, 2 ms), and a wave of 50 statuses spent
    that on the loop, in front of every frame behind it. The read files' entries are kept from the last publish
    but for those that changed (lsp/protocol/read_files_wire.py): with a thousand of them, an append would cost more the
    more files its session had read."""
    status = status_wire(slot, read_files=False)
    del status["readFiles"]
    files, files_json = slot.read_files.take(slot.session.read_state, slot.covered)
    encoded = b'{"readFiles":' + files_json + b"," + json.dumps(status).encode()[1:]
    status["readFiles"] = files
    slot.status_snapshot = (slot.revision(), status, encoded)
    slot.announce()
    return status


def _answerable(slot: SessionSlot) -> tuple[tuple[int, int, int, int], dict[str, Any], bytes] | None:
    """The slot's snapshot when it may answer at once (it describes the session as it is, or the session is busy
    and it is the last change that completed), or None when the session must be measured (under its lock)."""
    snapshot = slot.status_snapshot
    if snapshot is None or not (snapshot[0] == slot.revision() or slot.lock.locked()):
        return None
    return snapshot


def published(slot: SessionSlot) -> dict[str, Any] | None:
    """The snapshot to answer with at once, or None when the session must be measured (under its lock)."""
    snapshot = _answerable(slot)
    return None if snapshot is None else snapshot[1]


def published_json(slot: SessionSlot) -> bytes | None:
    """``published``'s snapshot as the JSON made when it was published, or None as ``published``."""
    snapshot = _answerable(slot)
    return None if snapshot is None else snapshot[2]


def compacting_snapshot(slot: SessionSlot) -> dict[str, Any] | None:
    """While a full compaction holds the session: its status as published, marked ``compacting`` (the compaction
    claims the session before it waits for the lock, so an append may still be changing it in a worker thread:
    measuring then failed with an IndexError, found by tests/reliability/test_concurrent_fuzz.py)."""
    snapshot = slot.status_snapshot
    return None if snapshot is None else {**snapshot[1], "compacting": True}


def answer_now(slot: SessionSlot) -> bytes | None:
    """What a status request for the slot is answered with at once now, as JSON, or None when the session must
    be measured: what the front process is told (lsp/relay_channel.py)."""
    if not slot.session.compacting:
        return published_json(slot)
    status = compacting_snapshot(slot)
    return None if status is None else json.dumps(status).encode()
