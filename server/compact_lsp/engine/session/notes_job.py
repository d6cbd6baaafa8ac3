"""A session's background notes: the job that refreshes them off the lock, committed only if history stayed.

The notes themselves (``NotesKeeper``: when to update, the writers, compaction from them) live in
``engine/summarize/session_notes.py``. ``notes_job`` snapshots a ``NotesJob`` under the session's lock, the job
runs without it, and ``commit_notes`` journals the notes under the lock again, unless a compaction or an undo
replaced the history meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.summarize.session_notes import NotesKeeper, SessionNotes


@dataclass
class NotesJob:
    """One background update of the session notes, on a snapshot of the messages."""

    keeper: NotesKeeper
    messages: list[Message]
    total_tokens: int
    generation: tuple[int, int]
    notes: SessionNotes | None = None

    async def run(self) -> None:
        self.notes = await self.keeper.update(self.messages, total_tokens=self.total_tokens)


def notes_job(session: ContextSession) -> NotesJob | None:
    """A snapshot for a background notes update when the policy says one is due, else None.

    Take it under the session's lock, run ``job.run()`` without the lock (a model may take seconds), then
    ``commit_notes`` under the lock again: an update that raced a compaction or an undo is dropped, its notes
    describe a history that is gone.
    """
    keeper = session.notes_keeper
    if not session.settings.session_notes.enabled:
        return None
    messages = list(session.messages)
    total = session.usage().total
    if keeper.updating or not keeper.should_update(total, keeper.tool_calls_since(messages)):
        return None
    return NotesJob(keeper, messages, total, session.state.compactions.generation)


def commit_notes(session: ContextSession, job: NotesJob) -> bool:
    """Journal the notes ``job`` wrote, unless history was replaced meanwhile; True when committed."""
    if job.notes is None:
        return False
    if session.state.compactions.generation != job.generation:
        session.notes_keeper.notes = None  # they describe a history that is gone; start afresh
        return False
    session.commit({"type": "notes", "notes": job.notes.to_dict(), "at": session.clock()})
    return True


async def update_notes_if_due(session: ContextSession) -> bool:
    """Snapshot, write and commit in one go (for callers that own the session outright, like tests)."""
    job = notes_job(session)
    if job is None:
        return False
    await job.run()
    return commit_notes(session, job)
