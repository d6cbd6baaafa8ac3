"""Loading a session from its journal: the header first, then every record replayed, damage repaired.

A record that cannot be applied is skipped and reported (engine/session/record_checks.py); after skipped records
the history is repaired so the API accepts it again, and the repair is journalled so later records' indexes replay
onto the same history.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.validate import repair, validate
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.journal import Journal, NullJournal
from compact_lsp.engine.session.record_checks import SkippedRecord
from compact_lsp.engine.settings import EngineSettings

log = logging.getLogger(__name__)


def replay_session(
    records: Iterable[dict[str, Any]],
    *,
    settings: EngineSettings,
    counter: TokenCounter,
    clock: Callable[[], float] = time.time,
    workspace_root: str | None = None,
    memory: ManagedMemory | None = None,
    journal: Journal | None = None,
    on_skipped: Callable[[SkippedRecord], None] | None = None,
) -> ContextSession:
    """Rebuild a session from its journal records (the header first). A record that cannot be applied is
    skipped and passed to ``on_skipped``; the rest load. ``journal`` is where the session writes from now on."""
    skipped: list[SkippedRecord] = []
    it = iter(records)
    header = next(it, None)
    if not header or header.get("type") != "header" or not isinstance(header.get("sessionId"), str):
        raise ValueError("session journal does not start with a header record")
    created_at = header.get("createdAt")
    if not isinstance(created_at, (int, float)) or isinstance(created_at, bool):
        skipped.append(SkippedRecord(0, "the header's 'createdAt' is not a number; the load time stands in"))
        created_at = clock()
    session = ContextSession(
        header["sessionId"],
        settings=settings,
        counter=counter,
        title=str(header.get("title", "")),
        system=str(header.get("system", "")),
        clock=clock,
        workspace_root=workspace_root,
        memory=memory,
        journal=None,
        created_at=float(created_at),
        write_header=False,
        source=header["source"] if isinstance(header.get("source"), str) else None,
    )
    skipped += session.follow(it, first_index=1)
    session.journal = journal or NullJournal()
    _repair_loaded(session)
    if on_skipped is not None:
        for bad in skipped:
            on_skipped(bad)
    return session


def _repair_loaded(session: ContextSession) -> None:
    """After skipped records, make the history one the API accepts again (a skipped middle line may have held a
    tool_result). A session this process may not write (another server owns it) is repaired in memory only."""
    if not validate(session.messages):
        return
    fixed = repair(session.messages, alternating=True)
    record = {"type": "repair", "messages": fixed.messages, "actions": fixed.actions, "at": session.clock()}
    try:
        session.journal.write(record)
    except Exception as exc:  # a full disk, or another server owns the session: this one only reads it
        log.warning("session %s: repaired in memory only (%s)", session.id, exc)
    session.state.apply(record, session.settings)
    log.warning("session %s: repaired after loading: %s", session.id, "; ".join(fixed.actions))
