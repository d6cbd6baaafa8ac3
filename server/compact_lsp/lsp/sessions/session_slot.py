"""A loaded session as the server holds it (``SessionSlot``) and its lock (``SessionLock``), which says who held it
since a status was published (lsp/sessions/snapshots.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from compact_lsp.agents.claude_code.live import FollowedSession
from compact_lsp.agents.codex.live import FollowedCodexSession
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.lsp.protocol.read_files_wire import ReadFilesWire
from compact_lsp.store.session_index import SessionSummary
from compact_lsp.store.session_store import LoadReport


class SessionLock(asyncio.Lock):
    """A session's lock, counting who took it: a status published under one hold is still the session's status
    only while nobody has held the lock since (lsp/sessions/snapshots.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0
        self.on_change: Callable[[], None] | None = None
        """Told after each release and ``expect``: whether the published status still answers may have changed
        (lsp/relay_channel.py)."""

    async def acquire(self) -> Literal[True]:
        await super().acquire()
        self.generation += 1
        return True

    def release(self) -> None:
        super().release()
        if self.on_change is not None:
            self.on_change()

    def expect(self) -> None:
        """A change is on its way (a task that will take the lock, not started yet): the status published before
        no longer answers at once, so a ``compact/status`` read after a ``didClose`` waits for it."""
        self.generation += 1
        if self.on_change is not None:
            self.on_change()

    @contextlib.asynccontextmanager
    async def looking(self) -> AsyncIterator[None]:
        """Hold the lock for a look that changes nothing the status shows (is a notes update due?): the status
        published before stays the answer, so ``compact/status`` still answers at once (lsp/sessions/snapshots.py)."""
        await asyncio.Lock.acquire(self)
        try:
            yield
        finally:
            self.release()


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
    followed: FollowedSession | FollowedCodexSession | None = None
    """Set for a Claude Code transcript or Codex rollout followed read-only (lsp/following/claude_code_follow.py,
    lsp/following/codex_follow.py)."""
    status_snapshot: tuple[tuple[int, int, int, int], dict[str, Any], bytes] | None = None
    """``compact/status`` as published after the last change, with the revision it describes and its JSON
    (lsp/sessions/snapshots.py)."""
    summary_snapshot: tuple[tuple[int, int, int, int], SessionSummary] | None = None
    """A followed session's ``compact/sessions`` entry, published after each update (it is in no index)."""
    relay: Callable[[SessionSlot], None] | None = None
    """Tells the front process what this session's status is answered with now (lsp/relay_channel.py); set while
    the slot is the registry's."""

    def __post_init__(self) -> None:
        self.lock.on_change = self.announce
        self.session.on_compacting = self.announce

    def announce(self) -> None:
        """What the slot's status request is answered with at once may have changed: tell the front, if any."""
        if self.relay is not None:
            self.relay(self)

    def revision(self) -> tuple[int, int, int, int]:
        """What a snapshot must match to describe the session as it is: the session, its revision, a followed
        transcript's updates, and the lock's holds (whoever held it since may have changed what the status shows,
        an editor's document say). Int reads: safe without the lock."""
        versions = self.session.revision, getattr(self.followed, "version", 0)
        return id(self.session), *versions, self.lock.generation
