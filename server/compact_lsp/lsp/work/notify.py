"""Server-to-client notifications: debounced usage, compaction events, and work-done progress."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from compact_lsp.engine.files.usable_path import real_path

if TYPE_CHECKING:
    from compact_lsp.engine.compaction.eviction import EvictionRecord
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)

DID_COMPACT = "compact/didCompact"


def did_compact(
    server: CompactLanguageServer,
    session_id: str,
    kind: str,
    trigger: str,
    before: int,
    after: int,
    full: dict[str, Any] | None = None,
) -> None:
    """``compact/didCompact``; ``full`` is a full compaction's result (its summariser and any fallback)."""
    server.send_notification(
        DID_COMPACT,
        {
            "sessionId": session_id,
            "kind": kind,
            "trigger": trigger,
            "tokensBefore": before,
            "tokensAfter": after,
            "summarizer": full.get("summarizer") if full else None,
            "fallback": bool(full.get("fallback")) if full else False,
            "fallbackReason": full.get("fallbackReason") if full else None,
        },
    )


def did_microcompact(server: CompactLanguageServer, session_id: str, eviction: EvictionRecord) -> None:
    """``compact/didCompact`` for a microcompaction (automatic, forced, or the agent's idle trigger)."""
    did_compact(server, session_id, "micro", eviction.trigger, eviction.tokens_before, eviction.tokens_after)


def changed(
    server: CompactLanguageServer, slot: SessionSlot, usage: dict[str, Any] | None, watches: Watches | None = None
) -> None:
    """After a change: follow the session's files with the watcher, and schedule a usage notification."""
    sync_watches(server, slot, watches)
    if usage is not None:
        slot.usage_wire = usage
        if server.usage_notifier is not None:
            server.usage_notifier.changed(slot.session.id, usage)


@dataclass(frozen=True)
class Watches:
    """The files a session's watches should follow, taken under its lock in the worker thread after a change:
    on the loop, the read-file state (a thousand files a session at load) and resolving each new path (a ``lstat``
    a component, each giving up the interpreter to the sessions' threads) cost every request behind them."""

    wanted: frozenset[str]
    real: dict[str, str]
    """The real path of each file not watched yet."""


def watches_of(slot: SessionSlot) -> Watches:
    """What ``sync_watches`` needs; call under the session's lock (the loop alone changes ``slot.watched``)."""
    wanted = frozenset(slot.session.read_state.realpaths())
    return Watches(wanted, {path: real_path(path) for path in wanted - slot.watched})


def sync_watches(server: CompactLanguageServer, slot: SessionSlot, watches: Watches | None = None) -> None:
    """Track exactly the files in the session's read-file state (their directories, non-recursively)."""
    watcher = server.watcher
    if watcher is None:
        return
    if watches is None:
        watches = watches_of(slot)
    wanted, real = watches.wanted, watches.real
    covered: set[str] = set()
    for path in wanted - slot.watched:
        reported_as = watcher.track(path, real.get(path))
        if reported_as == path and watcher.covers(path):  # its events name the record's path: they reach it
            covered.add(path)
    for path in slot.watched - wanted:
        watcher.untrack(path)
    slot.watched = set(wanted)
    slot.covered = frozenset((slot.covered & wanted) | covered)


class CompactionProgress:
    """``$/progress`` for one full compaction, on a server-created token; cancelling it sets ``cancel``."""

    def __init__(self, server: CompactLanguageServer) -> None:
        self._server = server
        self.token = f"compact-{uuid.uuid4().hex[:12]}"
        self.cancel = asyncio.Event()
        self._active = False

    def _client_supports_progress(self) -> bool:
        caps = self._server.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    async def begin(self) -> None:
        if not self._client_supports_progress():
            return
        progress = self._server.work_done_progress
        try:
            await progress.create_async(self.token)
        except Exception as exc:  # the client refused the token: compaction goes on without a progress bar
            log.info("client declined a progress token: %s", exc)
            return
        loop = asyncio.get_running_loop()
        future = progress.tokens.get(self.token)
        if future is not None:
            future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._cancelled, f))
        self._active = True
        progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title="Compacting conversation", cancellable=True, percentage=0),
        )

    def _cancelled(self, future: Any) -> None:
        if future.cancelled():
            self.cancel.set()

    def report(self, message: str, percent: int) -> None:
        if self._active:
            self._server.work_done_progress.report(
                self.token,
                types.WorkDoneProgressReport(message=message, percentage=max(0, min(100, percent))),
            )

    def end(self, message: str) -> None:
        if not self._active:
            return
        self._active = False
        progress = self._server.work_done_progress
        progress.end(self.token, types.WorkDoneProgressEnd(message=message))
        future = progress.tokens.pop(self.token, None)
        if future is not None and not future.done():
            future.set_result(None)
