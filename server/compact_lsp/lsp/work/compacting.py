"""Full compaction as the server runs it: one per session at a time, with progress, cancellable.

A second compaction of the same session while one runs is refused at once: the session's ``compaction_claim``
raises ``CompactionError("in_progress")`` before the lock is awaited, and the error mapping (lsp/protocol/errors.py)
turns it into the JSON-RPC error; it does not wait, the first one's result makes the second pointless. Appends that
arrive meanwhile wait on the session's lock and are applied after it, never lost. A failed or cancelled
compaction changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.compaction.full_compaction import CompactionError, CompactionOutcome, split_for_compaction
from compact_lsp.engine.session.notes_job import commit_notes, notes_job
from compact_lsp.lsp.protocol.answers import compaction_answer, rehydration_answer, usage_answer
from compact_lsp.lsp.work.in_session import in_session
from compact_lsp.lsp.work.notify import CompactionProgress, changed, did_compact

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)


def short_tokens(n: int) -> str:
    """A token figure as the editors show it: 950, 48.2k, 200k, 1.2M (progress messages are read, not parsed)."""
    if n >= 999_950:
        return f"{n / 1e6:.1f}".removesuffix(".0") + "M"
    if n >= 1000:
        return f"{n / 1000:.1f}".removesuffix(".0") + "k"
    return str(n)


async def compact_session(
    server: CompactLanguageServer, slot: SessionSlot, *, trigger: str, instructions: str | None = None
) -> CompactionOutcome:
    """Compact now and tell the client (progress, ``compact/didCompact``); returns the engine's outcome (its wire
    shape is ``compaction_answer``'s), or raises ``CompactionError`` (``in_progress`` at once).

    A followed Claude Code or Codex session is refused before anything runs: no model call for a summary it cannot
    keep.
    """
    session = slot.session
    if slot.followed is not None:
        raise slot.followed.refusal()
    with session.compaction_claim():
        progress = CompactionProgress(server)
        try:
            await progress.begin()
            async with slot.lock:
                # the model (or offline) summariser, for when the session's notes cannot make the summary
                summarizer = server.summarizer_factory(session.settings)
                outcome = await session.compact(
                    summarizer,
                    instructions=instructions,
                    trigger=trigger,
                    progress=progress.report,
                    cancel=progress.cancel,
                    claimed=True,
                )
                usage = usage_answer(session.usage())
                server.registry().index_slot(slot)
        except CompactionError as exc:
            progress.end(f"Compaction did not happen: {exc}")
            if exc.notify:  # an automatic compaction that cannot make room: said once, with what to change
                server.show_warning(f"compact-lsp: {exc}")
            raise
        except BaseException:
            progress.end("Compaction failed; nothing changed.")
            raise
    result = compaction_answer(outcome)
    progress.end(f"Compacted: {short_tokens(result['tokensBefore'])} → {short_tokens(result['tokensAfter'])} tokens")
    changed(server, slot, usage)
    did_compact(server, session.id, "full", trigger, result["tokensBefore"], result["tokensAfter"], result)
    return outcome


OUTCOME_KINDS = frozenset({"cancelled", "not_smaller", "empty", "nothing_to_undo"})
"""Compactions and undos that did not happen for a reason that is no failure: answered as results."""


def outcome(exc: CompactionError) -> dict[str, Any] | None:
    """The ``{changed: false, kind, reason}`` result for a refusal that is an outcome, else None."""
    if exc.kind not in OUTCOME_KINDS:
        return None
    result: dict[str, Any] = {"changed": False, "kind": exc.kind, "reason": str(exc)}
    if exc.kind == "cancelled":  # the summariser's own wording varies with where the cancel caught it
        result.update(cancelled=True, reason="The compaction was cancelled; nothing changed.")
    return result


async def refresh_notes(server: CompactLanguageServer, slot: SessionSlot) -> None:
    """Bring the session notes up to date in the background when due (the model call runs unlocked)."""
    session = slot.session
    if not session.settings.session_notes.enabled:
        return  # not even a look under the lock: after every append, that was a second trip to a worker thread
    async with slot.lock.looking():
        job = await asyncio.to_thread(notes_job, session)
    if job is None:
        return
    await job.run()
    async with slot.lock:
        committed = await asyncio.to_thread(commit_notes, session, job)
        if committed:
            await asyncio.to_thread(server.registry().index_slot, slot)
    log.debug("session notes of %s %s", session.id, "updated" if committed else "dropped (history replaced)")


async def rehydration_preview(server: CompactLanguageServer, slot: SessionSlot) -> dict[str, Any]:
    """What a compaction now would re-attach, ranked, with the reason for each file (reads disk)."""
    session = slot.session

    def preview() -> dict[str, Any]:
        pending = split_for_compaction(session.messages).pending
        result = session.rehydration([pending] if pending is not None else [])
        budgets = session.settings.rehydration.for_window(session.settings.context_window)
        wire: dict[str, Any] = rehydration_answer(result, budgets)
        return wire

    return await in_session(server, slot, preview, changes=False)
