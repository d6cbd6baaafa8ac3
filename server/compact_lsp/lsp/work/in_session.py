"""Running engine calls for handlers: under the session's lock, off the event loop, then telling the client.

``in_session`` is the one path every mutating handler takes: it runs the call in a worker thread (one of the
engine threads, runtime/io_threads.py) under the session's lock, snapshots the usage there (the counter is not safe to
touch from two threads), then on the loop updates the watched files and schedules ``compact/didChangeUsage``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.lsp.sessions.session_slot import SessionSlot
from compact_lsp.lsp.sessions.snapshots import publish
from compact_lsp.lsp.work.journal_follow import catch_up, on_journal_changed, on_lock_changed
from compact_lsp.lsp.work.notify import Watches, changed, watches_of
from compact_lsp.runtime.io_threads import run_engine, run_io
from compact_lsp.store.session_lock import SessionBusy
from compact_lsp.store.session_store import SessionChanged
from compact_lsp.tracking.reader import current_text

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)

T = TypeVar("T")

NOTICE_READ_TIMEOUT = 10.0
"""Seconds the watcher waits to re-read a changed file for its notice before giving up on it."""


async def in_session(
    server: CompactLanguageServer, slot: SessionSlot, call: Callable[[], T], *, changes: bool = True
) -> T:
    """Run ``call`` in a thread under the session's lock; when it ``changes`` the session, tell the client."""
    async with slot.lock:
        result, usage, watches = await run_engine(_call_and_measure, server, slot, call, changes)
    if changes:
        changed(server, slot, usage, watches)
    return result


def _call_and_measure(
    server: CompactLanguageServer, slot: SessionSlot, call: Callable[[], T], measure: bool
) -> tuple[T, dict[str, Any] | None, Watches | None]:
    try:
        result = call()
    except SessionChanged:
        # another server wrote the session since we last read it (and has let go of it): catch up, try once more
        catch_up(slot)
        result = call()
    if not measure:
        return result, None, None
    if server.sessions is not None:  # the listing's entry, taken under the same lock as the change
        server.sessions.index_slot(slot)
    return result, publish(slot)["usage"], watches_of(slot)


def on_file_changed(server: CompactLanguageServer, path: str) -> None:
    """The watcher saw ``path`` change: re-read it off the loop and notify every session that saw it."""
    registry = server.sessions
    if registry is None:
        return
    followed = registry.following.get(path)
    if followed is not None:
        on_journal_changed(server, followed)
        return
    locked = registry.locks.get(path)
    if locked is not None:
        on_lock_changed(server, locked)
        return
    slots = [slot for slot in registry.slots.values() if path in slot.watched]
    if slots:
        server.run_task(_notice_change(server, path, slots), name=f"file-changed {path}")


async def _notice_change(server: CompactLanguageServer, path: str, slots: list[SessionSlot]) -> None:
    """Read the file once, off the loop; each session decides what its model should be told."""
    roots = AllowedRoots().plus(*(root for slot in slots for root in slot.session.allowed_roots.paths))
    try:  # on the I/O threads, and not forever: a file on a mount that hangs must not hold the notice up for good
        now = await asyncio.wait_for(run_io(current_text, path, roots), NOTICE_READ_TIMEOUT)
        exists = now is not None or await asyncio.wait_for(run_io(os.path.lexists, path), NOTICE_READ_TIMEOUT)
    except TimeoutError:
        log.warning("no change notice for %s: reading it took over %g s", path, NOTICE_READ_TIMEOUT)
        return
    for slot in slots:
        async with slot.lock:
            noticed, usage = await run_engine(_notice_and_measure, slot, path, now, exists)
        if noticed:
            changed(server, slot, usage)


def _notice_and_measure(
    slot: SessionSlot, path: str, now: str | None, exists: bool
) -> tuple[bool, dict[str, Any] | None]:
    session = slot.session
    session.read_state.freshness(path)  # the published status stats a watched file only when it changed
    try:
        noticed = session.notice_change(path, now, exists=exists)
    except SessionBusy:  # another server writes this session: it journals the notice, this one follows it
        noticed = False
    usage = publish(slot)["usage"]  # whether the file the model saw is still fresh is part of the status
    if not noticed:
        return False, None  # touched, or changed and changed back: the model's copy is still right
    return True, usage
