"""What ``compact/status`` reports of a session: its usage, read files, last compactions, notes, biggest items."""

from __future__ import annotations

from typing import Any

from compact_lsp.engine.conversation.biggest import ContextItem, biggest_items
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_notes import notes_wire


def status_of(session: ContextSession) -> dict[str, Any]:
    session.read_state.refresh()
    last_micro = session.last_microcompaction
    return {
        "sessionId": session.id,
        "title": session.title,
        "usage": session.usage().to_wire(),
        "readFiles": session.read_state.status(),
        "lastMicrocompaction": last_micro.to_wire() if last_micro else None,
        "lastCompaction": session.state.compactions.last,
        "compacting": session.compacting,
        "sessionNotes": notes_wire(session.session_memory.notes),
        "biggestItems": [item.to_wire() for item in _biggest_items(session)],
        "canUndo": bool(session.state.compactions.standing),
        "messageCount": len(session.messages),
        "pinned": session.pins.to_wire(session.messages, session.workspace_root),
        "admittedFiles": [f.to_wire() for f in session.admitted_files],
    }


def _biggest_items(session: ContextSession) -> list[ContextItem]:
    history = session.state.history
    return biggest_items(
        history.messages, history.ledger.message_tokens, session.counter, history.attachment_texts.__contains__
    )
