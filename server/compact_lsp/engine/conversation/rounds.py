"""Grouping a conversation into API rounds, so that cuts never split a tool call from its result.

An API round is one model response and what answers it: an assistant message plus the next user message when
that message carries tool results. A user message without tool results (the person's prompt, and the leading
message of every conversation) forms a round of its own, so a cut can keep a prompt with what comes after it.
Consecutive assistant messages (only in unrepaired input) stay in one round: they may be one response.

Every round boundary is a safe cut: ``messages[:k]`` stays valid, and ``messages[k:]`` is valid once it starts
with a user message (``suffix_needs_user``): compaction puts its summary there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from compact_lsp.engine.conversation.messages import Message, blocks_of


@dataclass(frozen=True)
class ApiRound:
    """Messages ``start`` up to (not including) ``end``."""

    start: int
    end: int

    def __len__(self) -> int:
        return self.end - self.start

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self.start <= index < self.end


def _carries_results(message: Message) -> bool:
    return message.get("role") == "user" and any(b.get("type") == "tool_result" for b in blocks_of(message))


def group_rounds(messages: Sequence[Message]) -> list[ApiRound]:
    """The rounds of a conversation, in order; together they cover every message exactly once."""
    rounds: list[ApiRound] = []
    i, n = 0, len(messages)
    while i < n:
        start = i
        if messages[i].get("role") == "assistant":
            while i < n and messages[i].get("role") == "assistant":
                i += 1
            while i < n and _carries_results(messages[i]):
                i += 1
        else:
            i += 1
        rounds.append(ApiRound(start, i))
    return rounds


def round_boundaries(messages: Sequence[Message]) -> list[int]:
    """Every index where a cut splits no round: 0, the start of each round, and ``len(messages)``."""
    return sorted({0, len(messages), *(r.start for r in group_rounds(messages))})


def round_of(messages: Sequence[Message], index: int) -> ApiRound:
    """The round holding ``messages[index]``."""
    for r in group_rounds(messages):
        if index in r:
            return r
    raise IndexError(f"message index {index} is outside a conversation of {len(messages)} messages")


def suffix_needs_user(messages: Sequence[Message], cut: int) -> bool:
    """True when ``messages[cut:]`` starts with an assistant message (the API needs a user message first)."""
    return cut < len(messages) and messages[cut].get("role") == "assistant"


def recent_rounds_start(
    messages: Sequence[Message],
    token_budget: int,
    count_message: Callable[[Message], int],
    *,
    min_rounds: int = 1,
) -> int:
    """The earliest round boundary whose suffix fits in ``token_budget`` tokens.

    At least ``min_rounds`` whole rounds are kept even over budget (a round is never split to fit). Returns
    ``len(messages)`` when nothing is kept.
    """
    rounds = group_rounds(messages)
    cut = len(messages)
    used = 0
    for kept, r in enumerate(reversed(rounds)):
        size = sum(count_message(messages[i]) for i in range(r.start, r.end))
        if kept >= min_rounds and used + size > token_budget:
            break
        used += size
        cut = r.start
    return cut
