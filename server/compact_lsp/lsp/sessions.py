"""The workspace's sessions as the server holds them: loaded lazily from the store, one lock each.

Every engine call on a session runs under that session's ``asyncio.Lock`` and, when it may be slow (tokenising
a big append, stat-ing files), in a worker thread; so one session's work never interleaves with another call
on the same session and never blocks the event loop. Each session has its own token counter (sharing the
encoding): the counter's cache is not thread-safe, and sessions may work in parallel.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.context import ContextSession
from compact_lsp.engine.messages import new_id
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.tokens import TiktokenCounter, load_encoding
from compact_lsp.store import LoadReport, SessionStore, StoreError

from .errors import invalid_params

if TYPE_CHECKING:
    import tiktoken

log = logging.getLogger(__name__)


@dataclass
class SessionSlot:
    """A loaded session and what the server keeps beside it."""

    session: ContextSession
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by every engine call on this session; a compaction holds it while the model writes the summary."""
    watched: set[str] = field(default_factory=set)
    """Real paths this session asked the watcher to track."""
    usage_wire: dict[str, Any] | None = None
    """The last usage computed under the lock; what ``compact/didChangeUsage`` sends."""
    compacting: bool = False
    """A full compaction was asked for and has not finished (it may still be waiting for the lock)."""
    load_report: LoadReport | None = None
    """What loading the session's file found (None: created by this server); ``damaged_records`` counts the lines
    and records that were skipped."""


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
    ) -> None:
        self.store = store
        self.settings = settings
        self.workspace_root = workspace_root
        self.clock = clock
        self.slots: dict[str, SessionSlot] = {}
        self.following: dict[str, str] = {}
        """Real paths of session files another server may write → session id (lsp/following.py)."""
        self.last_active: str | None = None
        self._encoding: tiktoken.Encoding | None = None
        self._loading: dict[str, asyncio.Future[SessionSlot]] = {}
        self._on_load_report = on_load_report
        self._on_loaded = on_loaded
        """Called on the loop for each session created or loaded (open documents, watches)."""

    def _counter(self) -> TiktokenCounter:
        if self._encoding is None:
            self._encoding = load_encoding()
        return TiktokenCounter(self._encoding)

    def create(self, title: str) -> SessionSlot:
        session_id = new_id("ses")
        session = ContextSession(
            session_id,
            settings=self.settings,
            counter=self._counter(),
            title=title,
            clock=self.clock,
            workspace_root=self.workspace_root,
            journal=self.store.journal_for(session_id),
        )
        slot = SessionSlot(session)
        self.slots[session_id] = slot
        self.last_active = session_id
        return slot

    def loaded(self, slot: SessionSlot) -> None:
        if self._on_loaded is not None:
            self._on_loaded(slot)

    async def get(self, session_id: str | None, method: str) -> SessionSlot:
        """The session by id (loading it from disk if needed), or the most recently active one."""
        if session_id is None:
            if self.last_active is None:
                raise invalid_params(f"{method}: no session yet; create one with compact/newSession")
            session_id = self.last_active
        slot = self.slots.get(session_id)
        if slot is None:
            slot = await self._load(session_id, method)
        self.last_active = session_id
        return slot

    async def _load(self, session_id: str, method: str) -> SessionSlot:
        pending = self._loading.get(session_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[SessionSlot] = asyncio.get_running_loop().create_future()
        self._loading[session_id] = future
        try:
            try:
                known = self.store.exists(session_id)
            except StoreError as exc:
                raise invalid_params(f"{method}: {exc}") from None
            if not known:
                raise invalid_params(
                    f"{method}: unknown session {session_id!r}; list sessions with compact/sessions "
                    "or create one with compact/newSession"
                )
            session, report = await asyncio.to_thread(self._replay, session_id)
            slot = SessionSlot(session, load_report=report)
            self.slots[session_id] = slot
            self.loaded(slot)
            future.set_result(slot)
            return slot
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else must log it
            raise
        finally:
            del self._loading[session_id]

    def _replay(self, session_id: str) -> tuple[ContextSession, LoadReport]:
        records, report = self.store.load(session_id)
        journal = self.store.journal_for(session_id)
        journal.known_size = report.size  # appends by another server after this point are followed, not lost
        session = ContextSession.replay(
            records,
            settings=self.settings,
            counter=self._counter(),
            clock=self.clock,
            workspace_root=self.workspace_root,
            journal=journal,
            on_skipped=lambda bad: report.skipped_record(bad.index, bad.reason),
        )
        if not report.clean and self._on_load_report is not None:
            self._on_load_report(report)
        return session, report

    async def load_all(self) -> list[SessionSlot]:
        """All sessions of the workspace, loading those only on disk (unreadable ones are logged, skipped)."""
        for stored in self.store.list_sessions():
            if stored.session_id not in self.slots:
                try:
                    await self._load(stored.session_id, "compact/sessions")
                except Exception as exc:
                    log.warning("skipping saved session %s: %s", stored.session_id, exc)
        return sorted(self.slots.values(), key=lambda s: s.session.updated_at, reverse=True)

    def update_settings(self, settings: EngineSettings) -> None:
        self.settings = settings
        for slot in self.slots.values():
            slot.session.update_settings(settings)
