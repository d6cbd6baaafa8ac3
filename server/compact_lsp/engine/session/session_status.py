"""What ``compact/status`` reports of a session, as engine values (lsp/protocol/answers.py: their wire shape)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.compaction.eviction import EvictionRecord
from compact_lsp.engine.compaction.pins import PinnedItem
from compact_lsp.engine.conversation.biggest import ContextItem, biggest_items
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.files.admitted_files import AdmittedFile
from compact_lsp.engine.files.read_record import ReadRecord
from compact_lsp.engine.files.read_status import status_records
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.summarize.session_notes import SessionNotes


@dataclass(frozen=True)
class SessionStatus:
    """One session now: its usage, the files the model read, the last compactions, the notes, the biggest items."""

    session_id: str
    title: str
    usage: ContextUsage
    read_files: list[ReadRecord]
    """Freshly stat'ed, newest first, then open documents never read (engine/files/read_status.py)."""
    last_microcompaction: EvictionRecord | None
    last_compaction: dict[str, Any] | None
    """The newest standing compaction's result as its journal record keeps it."""
    compacting: bool
    session_notes: SessionNotes | None
    biggest_items: list[ContextItem]
    can_undo: bool
    message_count: int
    pinned: list[PinnedItem]
    admitted_files: list[AdmittedFile]


BIGGEST_ITEMS = 10
"""How many of the biggest blocks ``compact/status`` lists."""


def status_of(session: ContextSession, *, read_files: bool = True) -> SessionStatus:
    """The session's status; without ``read_files`` its ``read_files`` is left empty, for a caller that keeps
    those entries itself (lsp/protocol/read_files_wire.py)."""
    history = session.state.history
    return SessionStatus(
        session_id=session.id,
        title=session.title,
        usage=session.usage(),
        read_files=status_records(session.read_state) if read_files else [],
        last_microcompaction=session.last_microcompaction,
        last_compaction=session.state.compactions.last,
        compacting=session.compacting,
        session_notes=session.notes_keeper.notes,
        biggest_items=biggest_items(
            history.messages,
            history.ledger.largest(BIGGEST_ITEMS),
            session.counter,
            history.attachment_texts.__contains__,
            BIGGEST_ITEMS,
        ),
        can_undo=bool(session.state.compactions.standing),
        message_count=len(session.messages),
        pinned=session.pins.listed(session.messages, session.workspace_root),
        admitted_files=session.admitted_files,
    )
