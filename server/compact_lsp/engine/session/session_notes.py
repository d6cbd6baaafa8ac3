"""A session's background notes: the job that refreshes them off the lock, how they are set up, their wire shape.

The notes themselves (``SessionMemory``: when to update, the writers, compaction from them) live in
``engine/summarize/session_memory.py``; ``ContextSession`` snapshots a ``NotesJob`` under its lock, runs it
without, and commits it only if history was not replaced meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.session_memory import (
    NotesWriter,
    OfflineNotesWriter,
    SessionMemory,
    SessionMemoryPolicy,
    SessionNotes,
    notes_writer_from_settings,
)


@dataclass
class NotesJob:
    """One background update of the session-memory notes, on a snapshot of the messages."""

    memory: SessionMemory
    messages: list[Message]
    total_tokens: int
    generation: tuple[int, int]
    notes: SessionNotes | None = None

    async def run(self) -> None:
        self.notes = await self.memory.update(self.messages, total_tokens=self.total_tokens)


def notes_setup(settings: EngineSettings) -> tuple[NotesWriter, SessionMemoryPolicy]:
    """The notes writer (the model only when allowed and a key is set) and when to update."""
    notes = settings.session_memory
    writer = notes_writer_from_settings(settings) if notes.use_model else OfflineNotesWriter()
    policy = SessionMemoryPolicy(notes.first_after_tokens, notes.every_tokens, notes.min_tool_calls)
    return writer, policy


def notes_wire(notes: SessionNotes | None) -> dict[str, Any] | None:
    """``sessionNotes`` in ``compact/status`` (docs/protocol.md)."""
    if notes is None:
        return None
    return {"coveredUpto": notes.covered_upto, "writer": notes.writer, "updatedAt": notes.updated_at}
