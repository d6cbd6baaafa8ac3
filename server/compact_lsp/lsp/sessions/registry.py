"""The workspace's sessions as the server holds them: loaded lazily from the store, one lock each.

Every engine call on a session runs under that session's ``asyncio.Lock`` and, when it may be slow (tokenising
a big append, stat-ing files), in a worker thread; so one session's work never interleaves with another call
on the same session and never blocks the event loop. Each session has its own token counter (sharing the
encoding): the counter's cache is not thread-safe, and sessions may work in parallel.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import Followed
from compact_lsp.engine.conversation.messages import new_id
from compact_lsp.engine.conversation.tokens import TiktokenCounter, load_encoding
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_loading import replay_session
from compact_lsp.engine.settings import EngineSettings, passive
from compact_lsp.lsp.protocol.errors import invalid_params
from compact_lsp.lsp.sessions.session_slot import SessionSlot
from compact_lsp.lsp.sessions.snapshots import republish
from compact_lsp.runtime.io_threads import run_io
from compact_lsp.store.session_index import (
    SessionIndex,
    SessionSummary,
    first_request,
    first_request_in_records,
    source_of,
)
from compact_lsp.store.session_store import LoadReport, SessionStore, StoreError

if TYPE_CHECKING:
    import tiktoken

log = logging.getLogger(__name__)


class SessionRegistry:
    """Loaded sessions by id, the store behind them, and which one was active last."""

    def __init__(
        self,
        store: SessionStore,
        settings: EngineSettings,
        workspace_root: str | None,
        *,
        clock: Callable[[], float] = time.time,
        on_load_report: Callable[[LoadReport], None] | None = None,
        on_loaded: Callable[[SessionSlot], None] | None = None,
        followed_reads: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.workspace_root = workspace_root
        self.clock = clock
        self.slots: dict[str, SessionSlot] = {}
        self.following: dict[str, str] = {}
        """Real paths of session files another server may write → session id (lsp/work/journal_follow.py)."""
        self.locks: dict[str, str] = {}
        """Real paths of those sessions' lock files → session id: who holds each is told the editor as it changes."""
        self.index = SessionIndex(store.directory)
        """What ``compact/sessions`` lists, and the current session, beside the session files."""
        self._encoding: tiktoken.Encoding | None = None
        self._loading: dict[str, asyncio.Future[SessionSlot]] = {}
        self._on_load_report = on_load_report
        self._on_loaded = on_loaded
        self._followed_reads = followed_reads
        """Waits for the followed transcripts being read now (a session is listed once its first read ends)."""
        """Called on the loop for each session created or loaded (open documents, watches)."""

    def follow_slot(self, followed: Followed) -> SessionSlot:
        """The slot of a followed Claude Code or Codex session (made on first use): listed, selectable, read-only."""
        slot = self.slots.get(followed.id)
        if slot is None:
            slot = SessionSlot(followed.session, followed=followed)
            self.slots[followed.id] = slot
            self.loaded(slot)
        return slot

    def counter(self) -> TiktokenCounter:
        return self._counter()

    def _counter(self) -> TiktokenCounter:
        if self._encoding is None:
            self._encoding = load_encoding()
        return TiktokenCounter(self._encoding)

    def use_store(self, store: SessionStore) -> None:
        """Sessions now live elsewhere (``sessionDir`` changed); loaded ones stay loaded."""
        self.index.flush()
        self.store = store
        self.index = SessionIndex(store.directory)

    def create(self, title: str, source: str = "api") -> SessionSlot:
        """A new session, which becomes the current one (call off the loop: it writes the journal)."""
        session_id = new_id("ses")
        session = ContextSession(
            session_id,
            settings=self.settings,
            counter=self._counter(),
            title=title,
            clock=self.clock,
            workspace_root=self.workspace_root,
            journal=self.store.journal_for(session_id),
            source=source,
        )
        slot = SessionSlot(session)
        self.slots[session_id] = slot
        self.index_slot(slot)
        self.index.set_current(session_id)
        return slot

    def loaded(self, slot: SessionSlot) -> None:
        if self._on_loaded is not None:
            self._on_loaded(slot)

    async def get(self, session_id: str | None, method: str) -> SessionSlot:
        """The session by id (loading it from disk if needed), or the current one."""
        if session_id is None:
            session_id = self.current()
            if session_id is None:
                raise invalid_params(f"{method}: no session yet; create one with compact/newSession")
        slot = self.slots.get(session_id)
        if slot is None and self._followed_reads is not None and not self._exists(session_id):
            await self._followed_reads()  # a followed session named right after start: its first read lists it
            slot = self.slots.get(session_id)
        if slot is None:
            slot = await self._load(session_id, method)
        return slot

    def current(self) -> str | None:
        """The session the user chose last, else the most recently updated one, else None (reads the disk)."""
        chosen = self.index.current()
        if chosen is not None and (chosen in self.slots or self._exists(chosen)):
            return chosen
        stored = self.store.list_sessions()
        return stored[0].session_id if stored else None

    def require_stored(self, session_id: str, method: str) -> None:
        """Raise InvalidParams with what to do when there is no such session on disk."""
        try:
            known = self.store.exists(session_id)
        except StoreError as exc:
            raise invalid_params(f"{method}: {exc}") from None
        if not known:
            raise invalid_params(
                f"{method}: unknown session {session_id!r}; list sessions with compact/sessions "
                "or create one with compact/newSession"
            )

    def _exists(self, session_id: str) -> bool:
        try:
            return self.store.exists(session_id)
        except StoreError:
            return False

    async def select(self, session_id: str, method: str) -> SessionSlot:
        """Make ``session_id`` the current session (persisted); loads it."""
        slot = await self.get(session_id, method)
        await asyncio.to_thread(self.index.set_current, session_id)
        return slot

    # -- the index --------------------------------------------------------------------------------------------

    def summarize(self, slot: SessionSlot) -> SessionSummary:
        """The slot's ``compact/sessions`` item as stored; call under the session's lock (it measures)."""
        session = slot.session
        if not session.title and slot.first_request is None:
            slot.first_request = first_request(session.messages)
        followed = slot.followed
        usage = followed.usage() if followed is not None else session.usage()
        followed_source = session.source if followed is not None else None  # the agent's name; never on disk
        size, mtime_ns = self._stat(session.id)
        updated_at = session.state.updated_at
        if followed is not None:  # the agent's last activity, not when we began following it
            updated_at = followed.last_activity() or updated_at
        return SessionSummary(
            session_id=session.id,
            title=session.title or slot.first_request or "",
            source=followed_source or source_of({"source": session.source}, session.id),
            created_at=min(session.created_at, updated_at),
            updated_at=updated_at,
            messages=len(followed.messages) if followed is not None else len(session.messages),
            by_kind=dict(usage.by_kind),
            reported=usage.reported,
            damaged_records=slot.load_report.damaged_records if slot.load_report is not None else 0,
            size=size,
            mtime_ns=mtime_ns,
            context_window=followed.context_window() if followed is not None else None,
            turns=followed.turns() if followed is not None else 0,
        )

    def index_slot(self, slot: SessionSlot) -> None:
        """Bring the slot's index entry up to date; under the session's lock, right after it changed."""
        if slot.followed is not None:
            return  # not stored here: listed from the slot itself
        try:
            self.index.put(self.summarize(slot))
        except (OSError, StoreError) as exc:
            log.warning("could not index session %s: %s", slot.session.id, exc)

    def _stat(self, session_id: str) -> tuple[int, int]:
        try:
            st = os.stat(self.store.path_for(session_id))
        except OSError:
            return -1, -1
        return st.st_size, st.st_mtime_ns

    async def summaries(self) -> list[SessionSummary]:
        """Every stored session's summary, most recently updated first; a stale or missing index entry is
        rebuilt from its journal (once), a valid one costs the listing's ``stat``, taken off the loop."""
        stored = await run_io(self.store.list_sessions)  # not behind the sessions' work on the default threads
        result: list[SessionSummary] = []
        followed = {i for i, s in self.slots.items() if s.followed is not None}
        for entry in stored:
            if entry.session_id in followed:
                continue  # an old copy under the followed session's own id (Codex imports were so): unreachable
            summary = self.index.get(entry.session_id, entry.size, entry.mtime_ns)
            if summary is None:
                summary = self._in_progress(entry.session_id) or await self._rebuild_summary(entry.session_id)
            if summary is not None:
                result.append(summary)
        if stored:
            self.index.forget(s.session_id for s in stored)
        for slot in [s for s in self.slots.values() if s.followed is not None]:
            summary = await self.followed_summary(slot)
            if summary is not None:
                result.append(summary)
        return sorted(result, key=lambda s: s.updated_at, reverse=True)

    async def followed_summary(self, slot: SessionSlot) -> SessionSummary | None:
        """A followed session's entry: as published after its last update when that still holds or it is busy
        (lsp/sessions/snapshots.py), else measured under its lock; None while its first read is still running (a
        huge transcript): the list answers at once with what is ready, never waiting for a read."""
        snapshot = slot.summary_snapshot
        if snapshot is not None and (snapshot[0] == slot.stamp() or slot.lock.locked()):
            return snapshot[1]
        if slot.lock.locked():
            return None
        async with slot.lock:
            return await asyncio.to_thread(self.publish_summary, slot)

    def publish_summary(self, slot: SessionSlot) -> SessionSummary:
        """Measure a followed session's entry and publish it; under its lock, right after it changed."""
        summary = self.summarize(slot)
        slot.summary_snapshot = (slot.stamp(), summary)
        return summary

    def _in_progress(self, session_id: str) -> SessionSummary | None:
        """A loaded session's entry as its last change left it, while a change holds it: the change writes the
        journal, then indexes the session, under its lock; a listing between the two (a sessions view asking
        while the agent appends) shows the last change that completed, as ``compact/status`` does, and neither
        waits for the change nor measures the session again behind it."""
        slot = self.slots.get(session_id)
        if slot is None or slot.followed is not None or not slot.lock.locked():
            return None
        return self.index.known(session_id)

    async def _rebuild_summary(self, session_id: str) -> SessionSummary | None:
        slot = self.slots.get(session_id)
        try:
            if slot is not None:  # a look, not a change: the status published before still answers at once
                async with slot.lock.looking():
                    summary = await asyncio.to_thread(self.summarize, slot)
            else:  # replayed for its figures only: listing does not keep sessions in memory
                summary = await asyncio.to_thread(self._summary_from_disk, session_id)
        except Exception as exc:
            log.warning("skipping saved session %s: %s", session_id, exc)
            return None
        await asyncio.to_thread(self.index.put, summary)
        return summary

    def _summary_from_disk(self, session_id: str) -> SessionSummary:
        session, report, records = self._replay_records(session_id, tell=False)
        slot = SessionSlot(session, load_report=report)
        slot.first_request = first_request_in_records(records)
        return self.summarize(slot)

    async def _load(self, session_id: str, method: str) -> SessionSlot:
        pending = self._loading.get(session_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[SessionSlot] = asyncio.get_running_loop().create_future()
        self._loading[session_id] = future
        try:
            self.require_stored(session_id, method)
            session, report, records = await asyncio.to_thread(self._replay_records, session_id)
            # what this slot applied: another server's appends after it are followed, not lost (set here, not by
            # a listing's replay of the same journal, which would move it past records no slot applied)
            self.store.journal_for(session_id).known_size = report.size
            slot = SessionSlot(session, load_report=report)
            known = self.index.known(session_id)
            slot.first_request = known.title if known and known.title else first_request_in_records(records)
            del records
            self.slots[session_id] = slot
            self.loaded(slot)
            async with slot.lock:
                await asyncio.to_thread(self.index_slot, slot)
            future.set_result(slot)
            return slot
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else must log it
            raise
        finally:
            del self._loading[session_id]

    def _replay_records(
        self, session_id: str, *, tell: bool = True
    ) -> tuple[ContextSession, LoadReport, list[dict[str, Any]]]:
        """Load and replay a journal; ``tell`` the user about damage (once: when a session is opened, not when
        it is only measured for the list, which flags it as ``damaged``)."""
        records, report = self.store.load(session_id)
        journal = self.store.journal_for(session_id)
        session = replay_session(
            records,
            settings=self.settings,
            counter=self._counter(),
            clock=self.clock,
            workspace_root=self.workspace_root,
            journal=journal,
            on_skipped=lambda bad: report.skipped_record(bad.index, bad.reason),
        )
        if tell and not report.clean and self._on_load_report is not None:
            self._on_load_report(report)
        return session, report, records

    def update_settings(self, settings: EngineSettings) -> None:
        self.settings = settings
        for slot in self.slots.values():
            slot.session.update_settings(passive(settings) if slot.followed is not None else settings)
            republish(slot)  # its window and thresholds were the old settings
