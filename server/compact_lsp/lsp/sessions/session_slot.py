"""A loaded session as the server holds it (``SessionSlot``), its lock (``SessionLock``) and the stamp its published
status carries (``Stamp``, lsp/sessions/snapshots.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from compact_lsp.agents.agent import Followed
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.lsp.protocol.read_files_wire import ReadFilesWire
from compact_lsp.store.session_index import SessionSummary
from compact_lsp.store.session_store import LoadReport


class SessionLock(asyncio.Lock):
    """A session's lock, counting who took it: whoever held it may have changed what the status shows without a
    record (an editor's document, say), so a snapshot stamped before a hold no longer answers once it is over
    (lsp/sessions/snapshots.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0

    async def acquire(self) -> Literal[True]:
        await super().acquire()
        self.generation += 1
        return True

    def expect(self) -> None:
        """A change is on its way (a task that will take the lock, not started yet): the status published before
        no longer answers, so a ``compact/status`` read after a ``didClose`` waits for it."""
        self.generation += 1

    @contextlib.asynccontextmanager
    async def looking(self) -> AsyncIterator[None]:
        """Hold the lock for a look that changes nothing the status shows (is a notes update due?): the status
        published before stays the answer (lsp/sessions/snapshots.py)."""
        await asyncio.Lock.acquire(self)
        try:
            yield
        finally:
            self.release()


class Stamp(NamedTuple):
    """What a snapshot describes; it answers while the slot's stamp is the same (lsp/sessions/snapshots.py)."""

    session: int
    """The session object's identity: a session loaded again is another."""
    revision: int
    followed: int
    """A followed transcript's or rollout's updates."""
    settings: int
    """The settings object's identity: replaced whole on a configuration change."""
    holds: int
    """``SessionLock.generation``."""


Snapshot = tuple[Stamp, dict[str, Any], bytes]
"""A published status: its stamp, the answer and the answer's JSON."""


@dataclass
class SessionSlot:
    """A loaded session and what the server keeps beside it."""

    session: ContextSession
    lock: SessionLock = field(default_factory=SessionLock)
    """Held by every engine call on this session; a compaction holds it while the model writes the summary."""
    watched: set[str] = field(default_factory=set)
    """Real paths this session asked the watcher to track."""
    covered: frozenset[str] = frozenset()
    """Of ``watched``, those whose changes the watcher reports (their folder is watched): a published status does
    not stat them again, their change event does (lsp/protocol/read_files_wire.py). Replaced whole, on the loop."""
    read_files: ReadFilesWire = field(default_factory=ReadFilesWire)
    """The published status's ``readFiles`` entries, kept until their records change."""
    usage_wire: dict[str, Any] | None = None
    """The last usage computed under the lock; what ``compact/didChangeUsage`` sends."""
    load_report: LoadReport | None = None
    """What loading the session's file found (None: created by this server); ``damaged_records`` counts the lines
    and records that were skipped."""
    first_request: str | None = None
    """The user's first own request, the title of a session that was given none (found once, kept)."""
    followed: Followed | None = None
    """Set for an agent's transcript followed read-only (lsp/following/)."""
    status_snapshot: Snapshot | None = None
    """``compact/status`` as published after the last change, with its stamp and its JSON
    (lsp/sessions/snapshots.py)."""
    summary_snapshot: tuple[Stamp, SessionSummary] | None = None
    """A followed session's ``compact/sessions`` entry, published after each update (it is in no index)."""

    def stamp(self) -> Stamp:
        """What a snapshot taken now describes. Int reads and identities: safe without the lock."""
        session = self.session
        followed = getattr(self.followed, "version", 0)
        return Stamp(id(session), session.revision, followed, id(session.settings), self.lock.generation)
