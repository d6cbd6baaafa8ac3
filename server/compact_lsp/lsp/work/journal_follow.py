"""Following a session another server writes: its records are applied here as they land on disk.

Only one server may write a session (store/session_lock.py). Every other server that has the session loaded watches its
file with the ``FileWatcher`` and applies the owner's new records (``ContextSession.follow``), so its usage,
status and ``compact/didChangeUsage`` stay current; its own writes are refused with ``SessionBusy``, which names
the owner. Once this server holds the lock (the owner went away and this one wrote), nobody else can append and
following stops.

The lock file is watched too: another server takes it (it writes its name there) or lets it go (it closes the file,
or the OS does as the process ends), and ``compact/didChangeOpenElsewhere`` tells the editor at once, so a second
window turns read-only when the first one writes, and writable when the first one closes.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from compact_lsp.lsp.sessions.snapshots import publish
from compact_lsp.lsp.work.notify import changed
from compact_lsp.runtime.io_threads import run_io
from compact_lsp.store.session_lock import lock_path
from compact_lsp.store.session_store import SessionJournal, parse_lines

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)

DID_CHANGE_OPEN_ELSEWHERE = "compact/didChangeOpenElsewhere"


def journal_of(slot: SessionSlot) -> SessionJournal | None:
    journal = slot.session.journal
    return journal if isinstance(journal, SessionJournal) else None


def follow(server: CompactLanguageServer, slot: SessionSlot) -> None:
    """Watch the session's file while this server does not hold its write lock, and catch up once: what the owner
    appended between the load's read and the watch made no event the watch could see."""
    journal = journal_of(slot)
    if journal is None or journal.writer_lock.held or server.watcher is None or server.sessions is None:
        return
    real = server.watcher.track(str(journal.path))
    server.sessions.following[real] = slot.session.id
    server.sessions.locks[server.watcher.track(str(lock_path(journal.path)))] = slot.session.id
    on_journal_changed(server, slot.session.id)
    # taken before the watch began (the other window wrote as this one opened it): no event will say so
    _in_slot(server, slot.session.id, _held_when_followed, "lock of session")


def unfollow(server: CompactLanguageServer, slot: SessionSlot) -> None:
    journal = journal_of(slot)
    if journal is None or server.watcher is None or server.sessions is None:
        return
    for paths in (server.sessions.following, server.sessions.locks):
        for path, session_id in list(paths.items()):
            if session_id == slot.session.id:
                del paths[path]
                server.watcher.untrack(path)


def catch_up(slot: SessionSlot) -> int:
    """Apply the records another server appended since we last read the file (in a worker thread, under the
    session's lock); returns how many were read."""
    journal = journal_of(slot)
    if journal is None or journal.known_size is None:
        return 0
    data = journal.read_new()
    if not data:
        return 0
    records, report = parse_lines(data, journal.path)
    skipped = slot.session.follow(records)
    for bad in skipped:
        log.warning("session %s: skipped a record another server wrote: %s", slot.session.id, bad.reason)
    if not report.clean:
        log.warning("session %s: %s", slot.session.id, report.describe())
    return len(records)


def on_journal_changed(server: CompactLanguageServer, session_id: str) -> None:
    _in_slot(server, session_id, _caught_up, "follow session")


def _in_slot(
    server: CompactLanguageServer,
    session_id: str,
    work: Callable[[CompactLanguageServer, SessionSlot], Coroutine[Any, Any, None]],
    what: str,
) -> None:
    """Run ``work`` on the session's slot as a task, if the session is still loaded."""
    registry = server.sessions
    slot = registry.slots.get(session_id) if registry is not None else None
    if slot is not None:
        server.run_task(work(server, slot), name=f"{what} {session_id}")


async def _caught_up(server: CompactLanguageServer, slot: SessionSlot) -> None:
    def run() -> tuple[int, dict[str, Any] | None]:
        count = catch_up(slot)
        if not count:
            return 0, None
        if server.sessions is not None:  # the listing's entry and the status, as after a change of our own
            server.sessions.index_slot(slot)
        return count, publish(slot)["usage"]

    async with slot.lock:
        count, usage = await asyncio.to_thread(run)
    journal = journal_of(slot)
    if journal is not None and journal.writer_lock.held:
        unfollow(server, slot)  # ours now: nobody else appends
    if usage is not None:
        log.info("session %s: followed %d record(s) another server wrote", slot.session.id, count)
        changed(server, slot, usage)


def elsewhere(holder: dict[str, Any]) -> dict[str, Any]:
    """Another server's hold on a session as the protocol says it (``openElsewhere``): its pid, and its host when it
    is not this machine, from what its lock file names."""
    pid, host = holder.get("pid"), holder.get("host")
    owner: dict[str, Any] = {"pid": pid} if isinstance(pid, int) and pid > 0 else {}
    if isinstance(host, str) and host and host != socket.gethostname():
        owner["host"] = host
    return owner


def on_lock_changed(server: CompactLanguageServer, session_id: str) -> None:
    _in_slot(server, session_id, _holder_said, "lock of session")


async def _held_when_followed(server: CompactLanguageServer, slot: SessionSlot) -> None:
    await _holder_said(server, slot, only_held=True)


async def _holder_said(server: CompactLanguageServer, slot: SessionSlot, *, only_held: bool = False) -> None:
    """``compact/didChangeOpenElsewhere`` with who holds the session now (nobody else: no ``openElsewhere``, unless
    ``only_held``: then nothing is said)."""
    journal = journal_of(slot)
    if journal is None:
        return
    holder = await run_io(journal.writer_lock.holder)
    if holder is None and only_held:
        return
    params: dict[str, Any] = {"sessionId": slot.session.id}
    if holder is not None:
        params["openElsewhere"] = elsewhere(holder)
    server.send_notification(DID_CHANGE_OPEN_ELSEWHERE, params)
