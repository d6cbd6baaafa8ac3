"""Eviction records: what one microcompaction removed from history, and their wire form (the journal keeps its own).

The server persists an ``EvictionRecord`` with the session, returns it as the ``compact.microcompact`` result
(docs/protocol.md) and feeds its ``evicted_read_paths`` to the read-file state, so that no "file unchanged"
shortcut is served for content the model no longer has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Trigger = Literal["idle", "size", "forced"]
TRIGGERS: tuple[Trigger, ...] = get_args(Trigger)


@dataclass(frozen=True, slots=True)
class ProtectedResult:
    """A result kept because every path it read is preserved (managed memory)."""

    tool_use_id: str
    paths: list[str]


@dataclass(frozen=True, slots=True)
class ClearedResult:
    """A cleared result as the eviction record keeps it."""

    tool_use_id: str
    tool: str
    paths: list[str]
    tokens: int


@dataclass
class EvictionRecord:
    """What one microcompaction removed from history; the server persists it and feeds the read-file state."""

    trigger: Trigger
    tokens_before: int
    tokens_after: int
    cleared: list[ClearedResult]
    protected: list[ProtectedResult]
    evicted_read_paths: list[str]
    """Paths of read results that left history (all paths of an ambiguous read: re-reading is safe)."""
    unresolved: list[str]
    """Ids of cleared results whose request, or for a read whose single path, could not be found."""
    created_at: str
    """ISO 8601 UTC."""
    media_cleared: int = 0

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def cleared_ids(self) -> list[str]:
        return [c.tool_use_id for c in self.cleared]
