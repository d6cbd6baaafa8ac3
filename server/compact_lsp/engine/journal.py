"""The session journal: where every change to a ``ContextSession`` is written before it takes effect.

One JSON object per line, in order; ``ContextSession.replay`` rebuilds the same state from them. Every record
but the header carries ``at`` (the session clock when it happened). The record types and what each carries:

- ``header``: ``version`` (``JOURNAL_VERSION``), ``sessionId``, ``title``, ``system``, ``createdAt``; first, once.
- ``append``: ``messages`` (normalised), optionally ``usage`` (the API's reported usage for the last response).
- ``notice``: ``text``, the pending change notices folded into the last user message.
- ``rewrite``: microcompaction; ``changes`` (``index`` and the new ``message``), ``eviction`` (what was cleared).
- ``read``: a read the server served itself; ``path``, ``content``, ``toolUseId``, ``startLine``, ``numLines``,
  ``totalLines``.
- ``deny``: ``path``, a real path the user refused the agent (never rehydrated).
- ``notes``: ``notes``, the session-memory notes a background update wrote.
- ``compaction``: ``boundaryId``, ``messages`` (the compacted view), ``attached`` (where each rehydrated item
  sits in the summary message), ``result`` (the ``compact.compact`` result), ``boundary``.
- ``undo``: ``boundaryId``, the compaction it reverts (always the newest one still standing).
"""

from __future__ import annotations

from typing import Any, Protocol

JOURNAL_VERSION = 1


class Journal(Protocol):
    """Where records go before they take effect; ``write`` is durable when it returns and raises on failure."""

    def write(self, record: dict[str, Any]) -> None: ...


class NullJournal:
    """A journal that keeps nothing: sessions that live only in memory, and replay before the real one is set."""

    def write(self, record: dict[str, Any]) -> None:
        return None


def header_record(session_id: str, *, title: str, system: str, created_at: float) -> dict[str, Any]:
    """The first record of every journal."""
    return {
        "type": "header",
        "version": JOURNAL_VERSION,
        "sessionId": session_id,
        "title": title,
        "system": system,
        "createdAt": created_at,
    }
