"""A full compaction as a session runs it: the one decision, the one claim, the pure step, the commit; and undo.

``should_compact`` is the one automatic-compaction decision. ``compaction_claim`` holds the session's one
compaction (a second one is refused at once). ``compact`` runs the pre-compaction hook, takes a snapshot and hands
it to the pure step (``run_compaction``, engine/compaction/full_compaction.py) with ``rehydration`` (what would be
re-attached, read through the file gate); the outcome is committed only when the session did not move on meanwhile,
and ``SessionCompactions`` counts it for the circuit breaker. ``ContextSession`` offers each as a method; these take
a ``CompactingSession``, the part of it they use, so this module does not import the session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from compact_lsp.engine.compaction.full_compaction import (
    CompactionError,
    CompactionOutcome,
    CompactionSnapshot,
    ProgressFn,
    run_compaction,
    run_pre_compact_hook,
)
from compact_lsp.engine.compaction.ledger import build_ledger
from compact_lsp.engine.compaction.rehydration import LISTED_PAST_BUDGET, RehydrationResult, rehydrate
from compact_lsp.engine.compaction.skills import skill_roots, skills_from_read_state
from compact_lsp.engine.conversation.messages import Message, blocks_of
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.session.journal import compaction_record
from compact_lsp.engine.session.session_compactions import CompactionState, no_room_error
from compact_lsp.engine.session.session_state import SessionState
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.base import Summarizer


class CompactingSession(Protocol):
    """What a full compaction uses of a ``ContextSession``."""

    id: str
    settings: EngineSettings
    counter: TokenCounter
    clock: Callable[[], float]
    workspace_root: str | None
    memory: ManagedMemory
    compacting: bool
    state: SessionState

    @property
    def messages(self) -> list[Message]: ...
    @property
    def rehydration_roots(self) -> list[str]: ...
    @property
    def allowed_roots(self) -> AllowedRoots: ...
    def system_prompt(self) -> str: ...
    def usage(self) -> ContextUsage: ...
    def fixed_tokens(self) -> int: ...
    def commit(self, record: dict[str, Any]) -> None: ...


FREED_LITTLE_SHARE = 4
"""An automatic compaction that frees less than the retry margin over this (1.25% of the window at least) freed
almost nothing: the next automatic one waits for the context to grow by the margin."""


def should_compact(session: CompactingSession, usage: ContextUsage, overhead: int = 0) -> bool:
    """The one automatic-compaction decision: on, not stopped by the circuit breaker, none under way, and the next
    request (``usage`` plus ``overhead``, tokens the session does not count such as an agent's tool list) or the
    API's last report at or over the threshold."""
    settings = session.settings.auto_compact
    blocked = session.state.compactions.blocked(settings.max_consecutive_failures)
    if not settings.enabled or blocked or session.compacting:
        return False
    size = max(usage.total + overhead, usage.reported or 0)
    # after one that could not make room or freed almost nothing, the next waits for real growth, measured as the
    # wait was set: the session's own count (the API's report also holds the system prompt and the tools, which no
    # compaction shrinks, so it can stay over the threshold however small the history gets)
    return size >= usage.auto_compact_threshold and not session.state.compactions.waiting(usage.total)


@contextlib.contextmanager
def compaction_claim(session: CompactingSession) -> Iterator[None]:
    """Hold the session's one compaction; ``CompactionError("in_progress")`` when another holds it. A server claims
    before it waits for its lock, so a second request is refused at once and status says so."""
    if session.compacting:
        raise CompactionError(
            "in_progress",
            f"A compaction of session {session.id} is already in progress; wait for it to finish "
            "(the session's status shows it compacting until then).",
        )
    session.compacting = True
    try:
        yield
    finally:
        session.compacting = False


def rehydration(
    session: CompactingSession, kept: list[Message], room: int | None = None, *, listed: int = LISTED_PAST_BUDGET
) -> RehydrationResult:
    """What would be re-attached after a compaction that keeps ``kept``, within ``room`` tokens when given (the
    budgets are shares of the window; disk reads: call off the loop); ``listed``: see ``rehydrate``."""
    state, allowed = session.state, session.allowed_roots
    ledger = build_ledger(state.working_set, read_text=gated_reader(allowed), cwd=session.workspace_root or "")
    return rehydrate(
        read_state=state.read_state,
        kept_messages=kept,
        settings=session.settings.rehydration.for_window(session.settings.context_window, room),
        counter=session.counter,
        workspace_roots=session.rehydration_roots,
        read_text=gated_reader(allowed),
        plan=extract_plan(session.messages),
        skills=skills_from_read_state(state.read_state, roots=skill_roots(allowed)),
        memory_indexes=session.memory.load_indexes(),
        history=session.messages,
        denied_paths=frozenset(state.denied_paths),
        # the memory index stays in the system prompt; rehydration skips what is already there verbatim
        system_prompt=session.system_prompt(),
        pinned=tuple(state.pins.paths),
        listed=listed,
        ledger=ledger.text,
    )


def unchanged_since_compaction(messages: list[Message], standing: list[CompactionState]) -> bool:
    """Whether the view is the last compaction's, as it left it: no message after it, no user turn merged in."""
    if not standing or not messages:
        return False
    last = standing[-1]
    return len(messages) == last.post_len and len(blocks_of(messages[-1])) == last.last_blocks


async def compact(
    session: CompactingSession,
    summarizer: Summarizer,
    *,
    instructions: str | None = None,
    trigger: str = "manual",
    progress: ProgressFn | None = None,
    cancel: asyncio.Event | None = None,
    claimed: bool = False,
) -> CompactionOutcome:
    """Replace history by a summary plus rehydrated essentials; a failure changes nothing.

    The pre-compaction hook first (its output adds instructions), then ``run_compaction`` on a snapshot; the
    outcome is committed only when nothing changed the session meanwhile. ``claimed``: the caller holds
    ``compaction_claim()`` already.
    """
    compactions = session.state.compactions
    with contextlib.nullcontext() if claimed else compaction_claim(session):
        try:
            command = session.settings.pre_compact_command
            if command:
                extra = await asyncio.to_thread(run_pre_compact_hook, command, session.workspace_root)
                instructions = "\n\n".join(part for part in (instructions, extra) if part) or None
            window, auto = session.settings.context_window, session.settings.auto_compact
            snapshot = CompactionSnapshot(
                list(session.messages), session.state.revision, session.system_prompt(), session.usage().total,
                session.fixed_tokens(), window, auto.target_for(window), auto.summary_tokens(window),
                unchanged_since_compaction(session.messages, compactions.standing),
            )  # fmt: skip
            outcome = await run_compaction(
                # the files left out are listed for the preview alone: a compaction keeps what comes back
                snapshot, summarizer, rehydrate=lambda kept, room: rehydration(session, kept, room, listed=0),
                count=session.counter,
                clock=session.clock, instructions=instructions, trigger=trigger, progress=progress, cancel=cancel,
            )  # fmt: skip
            if session.state.revision != snapshot.revision:
                raise CompactionError("conflict", "The conversation changed during compaction; nothing changed.")
            if progress is not None:
                progress("Committing", 95)
            session.commit(compaction_record(outcome))
        except CompactionError as exc:
            if exc.kind != "not_smaller":  # no room is no failure: it waits for growth, not for the breaker
                compactions.finished(trigger, ok=False)
            elif trigger == "auto":
                raise no_room_error(exc, compactions, session.settings, session.usage().total) from exc
            raise
        compactions.finished(trigger, ok=True)
        if trigger == "auto":
            after = session.usage().total
            margin = auto.retry_margin(window)
            if snapshot.tokens_before - after < margin // FREED_LITTLE_SHARE:
                compactions.freed_little(after, margin)
        return outcome


@dataclass(frozen=True)
class UndoOutcome:
    """An undo that happened: the compaction it reverted, and the context's size now."""

    boundary_id: str
    tokens_after: int


def undo(session: CompactingSession) -> UndoOutcome:
    """Restore the exact view from before the last compaction, keeping messages added since (if still valid)."""
    if session.compacting:
        raise CompactionError("in_progress", "A compaction is in progress; undo after it finishes.")
    standing = session.state.compactions.undo_target(session.messages)
    session.commit({"type": "undo", "boundaryId": standing.boundary_id, "at": session.clock()})
    return UndoOutcome(standing.boundary_id, session.usage().total)
