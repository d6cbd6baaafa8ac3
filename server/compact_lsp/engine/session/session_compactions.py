"""A session's full compactions over time: what undo restores, and the circuit breaker for automatic ones.

``run_compaction`` (compaction/full_compaction.py) computes one compaction and ``ContextSession.compact`` commits it;
``SessionCompactions`` is what the session keeps around them: the views from before each compaction still standing
(what undo restores), how many automatic ones failed in a row, and how many were undone (a notes update that raced
any of this is dropped).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.messages import Message, blocks_of, join_messages, normalize_message
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.settings import EngineSettings


@dataclass
class CompactionState:
    """What undo needs: the views before each compaction, newest last, with the view length right after it."""

    boundary_id: str
    pre_view: list[Message]
    post_len: int
    record: dict[str, Any] = field(default_factory=dict)
    last_blocks: int = 0
    """How many blocks the compacted view's last message had: a user turn that came next was merged into it
    (roles alternate), and the blocks past these are that turn, which undo gives back as its own message."""


@dataclass(frozen=True)
class CompactedView:
    """A ``compaction`` record read back: the new messages and what in them the engine attached."""

    messages: list[Message]
    attachment_texts: list[str]
    whole_files: list[tuple[str, str]]
    """``(path, text)`` of files re-attached whole: back in the model's context (partial ones are not)."""
    tokens_after: int
    partial_files: list[str] = field(default_factory=list)
    """Paths of files re-attached as slices (or as a deleted-file notice): fresh, but not whole."""


class SessionCompactions:
    """The compactions of one session, newest last; the session applies what they change to its view."""

    def __init__(self) -> None:
        self.standing: list[CompactionState] = []
        self.auto_failures = 0
        """Automatic compactions that failed in a row; any success resets it."""
        self.undone = 0
        self.retry_at: int | None = None
        """After an automatic compaction that could not make room: the context size the next one waits for."""
        self.told_no_room = False
        """Whether the user was told that automatic compaction cannot make room (once, until one succeeds)."""

    @property
    def generation(self) -> tuple[int, int]:
        """Changes whenever history is replaced (a compaction or an undo)."""
        return len(self.standing), self.undone

    @property
    def last(self) -> dict[str, Any] | None:
        """The newest standing compaction's result, as ``compact.compact`` returned it."""
        return self.standing[-1].record if self.standing else None

    def blocked(self, max_failures: int) -> bool:
        return self.auto_failures >= max_failures

    def finished(self, trigger: str, ok: bool) -> None:
        """Count a compaction's end for the circuit breaker: an automatic failure adds one, any success resets."""
        if ok:
            self.auto_failures = 0
            self.retry_at, self.told_no_room = None, False
        elif trigger == "auto":
            self.auto_failures += 1

    def waiting(self, tokens: int) -> bool:
        """Automatic compaction waits: the last one could not make room (or freed almost nothing) and the context,
        counted as ``retry_at`` was (the session's own estimate), has not grown enough."""
        return self.retry_at is not None and tokens < self.retry_at

    def freed_little(self, tokens: int, margin: int) -> None:
        """An automatic compaction succeeded but freed almost nothing (what stays over the threshold is not history:
        the system prompt, the tools): the next one waits for ``margin`` more than ``tokens``, without a word."""
        self.retry_at = tokens + margin

    def no_room(self, tokens: int, margin: int) -> bool:
        """An automatic compaction could not make room at ``tokens``: wait for ``margin`` more; True the first time
        (tell the user then, once)."""
        self.retry_at = tokens + margin
        first, self.told_no_room = not self.told_no_room, True
        return first

    def undo_target(self, messages: list[Message]) -> CompactionState:
        """The compaction an undo would revert now; raises when there is none or the result would be invalid."""
        if not self.standing:
            raise CompactionError("nothing_to_undo", "There is no compaction to undo in this session.")
        state = self.standing[-1]
        problems = validate(self._restored(state, messages))
        if problems:
            raise CompactionError(
                "cannot_undo",
                "Undo would leave an invalid conversation with the messages added since the compaction "
                f"({problems[0].message}); nothing changed.",
            )
        return state

    def push(self, record: dict[str, Any], messages: list[Message]) -> CompactedView:
        """Apply a ``compaction`` record: remember ``messages`` for undo and return the view replacing them."""
        new = [normalize_message(m) for m in record["messages"]]
        last_blocks = len(blocks_of(new[-1])) if new else 0
        result = copy.deepcopy(record["result"])
        self.standing.append(CompactionState(str(record["boundaryId"]), messages, len(new), result, last_blocks))
        summary_blocks = blocks_of(new[0]) if new else []
        attached = [(e, str(summary_blocks[int(e["block"])].get("text", ""))) for e in record.get("attached", [])]
        whole_files = [
            (str(entry["path"]), text)
            for entry, text in attached
            if entry.get("kind") == "file" and not entry.get("partial") and entry.get("path")
        ]
        partial_files = [
            str(entry["path"])
            for entry, _ in attached
            if entry.get("kind") in ("file", "file-deleted") and entry.get("path") and (entry.get("partial") or
                                                                                     entry.get("kind") != "file")
        ]  # fmt: skip
        tokens_after = int(record["result"].get("tokensAfter", 0))
        return CompactedView(new, [text for _, text in attached], whole_files, tokens_after, partial_files)

    def pop(self, messages: list[Message]) -> list[Message]:
        """Apply an ``undo`` record: the view from before the newest compaction plus what was added since."""
        state = self.standing.pop()
        self.undone += 1
        return self._restored(state, messages)

    @staticmethod
    def _restored(state: CompactionState, messages: list[Message]) -> list[Message]:
        """The view before the compaction, then every turn since, each its own message again.

        The turn right after a compaction that ended on the summary message (a user message) was merged into
        it; its blocks are split back out, so the question asked after compacting follows the old history.
        """
        since = messages[state.post_len :]
        if 0 < state.post_len <= len(messages):
            last = messages[state.post_len - 1]
            later_blocks = blocks_of(last)[state.last_blocks :]
            if last.get("role") == "user" and later_blocks:
                since = [{**last, "content": later_blocks}, *since]
        return join_messages(state.pre_view, since)


def no_room_error(exc: CompactionError, compactions: SessionCompactions, settings: EngineSettings, tokens: int) -> (
        CompactionError):  # fmt: skip
    """An automatic compaction that could not make room: automatic ones now wait for the context to grow by a real
    margin; the first time, the error says so and what to change (``notify``: tell the user, once)."""
    window, auto = settings.context_window, settings.auto_compact
    margin = auto.retry_margin(window)
    if not compactions.no_room(tokens, margin):
        return CompactionError(exc.kind, str(exc))
    rehydration = settings.rehydration
    budget = (
        f"rehydration.tokenBudget (now {rehydration.token_budget})"
        if rehydration.token_budget is not None
        else f"rehydration.budgetPercent (now {rehydration.budget_percent:g}%)"
    )
    advice = (
        f"Automatic compaction now waits until the context has grown by {margin} tokens (to {tokens + margin}). "
        f"To make room: lower {budget} or autoCompact.summaryPercent (now {auto.summary_percent:g}%), trim the "
        "system prompt or memory index, raise contextWindow if the model has a bigger window, or start a new "
        "session; compact by hand (Compact the conversation) to compact anyway."
    )
    return CompactionError(exc.kind, f"{exc} {advice}", notify=True)
