"""Microcompaction as a session runs it: the automatic triggers around an append, planned and committed.

Around ``ContextSession.append``: ``idle_plan`` before it (the first assistant message after a pause of
``idleMinutes`` clears old results), ``after_append`` after it (the size trigger, then, when the append made a
full compaction due, microcompaction instead of a summary if clearing old tool results alone gets under the
threshold). ``plan`` decides on the session's history (engine/compaction/microcompact.py), ``commit_plan`` journals
the ``rewrite`` record. These take a ``MicrocompactingSession``, the part of a ``ContextSession`` they use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from compact_lsp.engine.compaction.eviction import EvictionRecord, Trigger
from compact_lsp.engine.compaction.microcompact import idle_due, plan_microcompaction
from compact_lsp.engine.compaction.microcompact_plan import MicrocompactPlan, apply_plan
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.files.memory import ManagedMemory, make_preserve_read
from compact_lsp.engine.session.journal import rewrite_record
from compact_lsp.engine.session.session_state import SessionState
from compact_lsp.engine.settings import EngineSettings


@dataclass(frozen=True)
class AppendOutcome:
    usage: ContextUsage
    microcompaction: EvictionRecord | None = None
    compaction_due: bool = False


class MicrocompactingSession(Protocol):
    """What microcompaction uses of a ``ContextSession``."""

    settings: EngineSettings
    counter: TokenCounter
    memory: ManagedMemory
    workspace_root: str | None
    state: SessionState

    @property
    def messages(self) -> list[Message]: ...
    def usage(self) -> ContextUsage: ...
    def fixed_tokens(self) -> int: ...
    def should_compact(self, usage: ContextUsage, overhead: int = 0) -> bool: ...
    def commit(self, record: dict[str, Any]) -> None: ...


def plan(session: MicrocompactingSession, trigger: Trigger, now: float) -> MicrocompactPlan | None:
    """What ``trigger`` would clear now, without changing anything."""
    return plan_microcompaction(
        session.messages,
        session.settings.microcompact.for_window(session.settings.context_window),
        trigger,
        counter=session.counter,
        preserve_read=make_preserve_read(session.memory, cwd=session.workspace_root),
        read_tools=session.settings.read_tools,
        now=now,
        last_assistant_at=session.state.last_assistant_at,
        pinned=frozenset(session.state.pins.tool_use_ids),
    )


def commit_plan(session: MicrocompactingSession, planned: MicrocompactPlan, now: float) -> EvictionRecord:
    """Journal and apply ``planned`` as a ``rewrite`` record of the messages it changes."""
    result = apply_plan(session.messages, planned)
    changes = [
        {"index": i, "message": m}
        for i, (old, m) in enumerate(zip(session.messages, result.messages, strict=True))
        if old is not m
    ]
    session.commit(rewrite_record(changes, result.eviction, at=now))
    return result.eviction


def idle_plan(session: MicrocompactingSession, new: list[Message], now: float) -> MicrocompactPlan | None:
    """Before appending ``new``: the idle trigger's plan when an assistant message ends a long enough pause."""
    if (
        new
        and new[0]["role"] == "assistant"
        and idle_due(session.settings.microcompact, now, session.state.last_assistant_at)
    ):
        return plan(session, "idle", now)
    return None


def after_append(session: MicrocompactingSession, now: float, eviction: EvictionRecord | None) -> AppendOutcome:
    """After an append: the size trigger, then clearing in place of a full compaction when that reaches the
    compaction's target."""
    threshold = session.settings.microcompact.size_trigger_tokens(session.settings.context_window)
    # the ledger's tool-result total is exact and costs nothing; the trigger measures only what it may clear,
    # so the markers it left can be taken off first: plan (a scan of the whole history) only when it can fire
    state = session.state
    results = state.history.ledger.totals.get("tool_result", 0) - state.cleared_markers_tokens
    if threshold != -1 and results > threshold:
        size = plan(session, "size", now)
        if size is not None:
            eviction = commit_plan(session, size, now)
    usage = session.usage()
    auto, window = session.settings.auto_compact, session.settings.context_window
    if auto.enabled and usage.total >= usage.auto_compact_threshold:
        # clearing old tool results first, when that alone gets down to the compaction's target (the headroom
        # below the threshold): no summary, and a rewrite that buys real room, not one result per round
        forced = plan(session, "forced", now)
        if forced is not None and forced.tokens_after + session.fixed_tokens() <= auto.target_for(window):
            eviction = commit_plan(session, forced, now)
            usage = session.usage()
    return AppendOutcome(usage=usage, microcompaction=eviction, compaction_due=session.should_compact(usage))
