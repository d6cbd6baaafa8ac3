"""How the agent loop reaches the engine: directly in tests and the CLI, under the session's lock in the server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from compact_lsp.engine.compaction.eviction import EvictionRecord
from compact_lsp.engine.compaction.full_compaction import CompactionError, CompactionOutcome
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.summarize.base import Summarizer

T = TypeVar("T")


class SessionAccess(Protocol):
    """How the loop reaches the engine (see the module docstring)."""

    async def run(self, fn: Callable[[], T], *, changes: bool = True) -> T: ...

    async def compact(self, trigger: str) -> CompactionOutcome:
        """Compact now; the engine's outcome, or ``CompactionError``."""
        ...

    def microcompacted(self, eviction: EvictionRecord) -> None: ...


class DirectAccess:
    """The engine called directly (tests, the CLI): no lock is needed with one caller."""

    def __init__(self, session: ContextSession, summarizer: Summarizer | None = None) -> None:
        self.session = session
        self.summarizer = summarizer

    async def run(self, fn: Callable[[], T], *, changes: bool = True) -> T:
        return fn()

    async def compact(self, trigger: str) -> CompactionOutcome:
        if self.summarizer is None:
            raise CompactionError("no_summarizer", "no summariser was given, so the agent cannot compact")
        return await self.session.compact(self.summarizer, trigger=trigger)

    def microcompacted(self, eviction: EvictionRecord) -> None:
        return None
