"""How far the next automatic compaction is: from the threshold the agent compacts at (its own, as configured, or
ours), the context's size now and how much it grew per turn, "~N tokens / ~M turns", and whether that is near
enough to warn. Pure: figures in, an answer out; each agent's room says what its threshold is
(agents/auto_compaction.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from compact_lsp.engine.conversation.messages import Message, blocks_of

NEAR_TURNS = 2
"""Warn when the next automatic compaction is at most this many turns away (at the growth per turn so far)..."""
NEAR_SHARE = 10
"""...or when what is left is at most this share (percent) of the threshold."""


def near_point(threshold: int) -> int:
    """The context size from which an automatic compaction at ``threshold`` is near by its size alone: the gauge's
    warning threshold (``ContextUsage.warning_threshold``), whoever compacts."""
    return threshold - threshold * NEAR_SHARE // 100


@dataclass(frozen=True)
class AutoCompaction:
    """An agent's automatic compaction as configured where it runs."""

    threshold: int | None
    """The context size (tokens) it fires at; None: it will not fire by itself (``disabled_by`` says why)."""
    origin: str
    """Where the threshold comes from, in the user's words ("Claude Code's default: the window less 33,000")."""
    disabled_by: str | None = None
    """What silently turns the agent's automatic compaction off ("DISABLE_AUTO_COMPACT in the environment")."""


@dataclass(frozen=True)
class NextCompaction:
    """How far the next automatic compaction is."""

    threshold: int | None
    tokens_left: int | None
    turns_left: int | None
    per_turn: int | None
    """The context's growth per turn so far (None: no turn yet)."""
    near: bool
    origin: str
    disabled_by: str | None


def next_compaction(total: int, auto: AutoCompaction, turns: int) -> NextCompaction:
    """Where the next automatic compaction of a context of ``total`` tokens, ``turns`` user turns in, falls."""
    per_turn = total // turns if turns > 0 and total > 0 else None
    if auto.threshold is None:
        return NextCompaction(None, None, None, per_turn, False, auto.origin, auto.disabled_by)
    left = max(0, auto.threshold - total)
    turns_left = -(-left // per_turn) if per_turn else None
    near = total >= near_point(auto.threshold) or (turns_left is not None and turns_left <= NEAR_TURNS)
    return NextCompaction(auto.threshold, left, turns_left, per_turn, near, auto.origin, auto.disabled_by)


def user_turns(messages: Iterable[Message]) -> int:
    """How many turns the user started in ``messages``: user messages with text of their own (not only tool
    results, not an agent's ``<…>`` notice)."""
    turns = 0
    for message in messages:
        if message.get("role") != "user":
            continue
        for block in blocks_of(message):
            text = block.get("text") if block.get("type") == "text" else None
            if isinstance(text, str) and text.strip() and not text.lstrip().startswith("<"):
                turns += 1
                break
    return turns


class UserTurns:
    """``user_turns`` of a history that grows at its end (a followed transcript's), counted once a message: what was
    counted is kept while the history is the same list with the same message where the count stopped; the last
    message is counted again each time (a user message that follows a user message is merged into it); a history
    replaced (a compaction, a rewrite) is counted again from its start. Counting a 20,000-record window from its
    start took 16 ms, twice an appended line (docs/benchmarks.md)."""

    def __init__(self) -> None:
        self._messages: Sequence[Message] | None = None
        self._counted = 0
        """Messages counted into ``_turns`` (all but the last the history had then)."""
        self._turns = 0
        self._at_end: Message | None = None
        """The last message counted into ``_turns``, to see that the history still holds it there."""

    def __call__(self, messages: Sequence[Message]) -> int:
        counted = self._counted
        kept = messages is self._messages and counted <= len(messages)
        if not kept or (counted and messages[counted - 1] is not self._at_end):
            counted, self._turns = 0, 0
        end = max(counted, len(messages) - 1)
        self._turns += user_turns(messages[counted:end])
        self._messages, self._counted = messages, end
        self._at_end = messages[end - 1] if end else None
        return self._turns + user_turns(messages[end:])
