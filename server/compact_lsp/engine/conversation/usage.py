"""Context usage: how full the window is, by kind, against the auto-compact threshold."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.conversation.messages import Message, blocks_of
from compact_lsp.engine.conversation.next_compaction import NextCompaction, near_point
from compact_lsp.engine.conversation.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter
from compact_lsp.engine.settings import EngineSettings

KINDS = ("system", "user_text", "assistant_text", "tool_use", "tool_result", "attachments", "memory")


def message_kind_tokens(
    counter: TokenCounter, message: Message, is_attachment: Callable[[str], bool] | None = None
) -> dict[str, int]:
    """Tokens of one message split by kind; the framing overhead counts toward its text kind.

    ``is_attachment`` tells which user text blocks the engine attached (rehydrated files, plan, skills, change
    notices): the API has no field to mark them, so the session that made them knows their text.
    """
    role = message.get("role")
    text_kind = "assistant_text" if role == "assistant" else "user_text"
    counts: dict[str, int] = {text_kind: MESSAGE_OVERHEAD_TOKENS}
    for block in blocks_of(message):
        kind = block.get("type")
        if kind in ("tool_use", "server_tool_use"):
            key = "tool_use"
        elif kind == "tool_result":
            key = "tool_result"
        elif kind == "text" and is_attachment is not None and role == "user" and is_attachment(block.get("text", "")):
            key = "attachments"
        else:
            key = text_kind
        counts[key] = counts.get(key, 0) + counter.count_block(block)
    return counts


def reported_input_tokens(usage: Mapping[str, Any] | None) -> int | None:
    """The prompt size the API reported: input plus cache creation plus cache reads."""
    if not usage:
        return None
    total = 0
    seen = False
    for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            total += value
            seen = True
    return total if seen else None


@dataclass(frozen=True)
class ContextUsage:
    total: int
    by_kind: dict[str, int]
    context_window: int
    auto_compact_threshold: int
    warning_threshold: int
    reported: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    estimated: int | None = None
    """Our count of the messages when ``total`` is not it (a followed session's gauge is the agent's own
    figure); None: ``total`` is our count."""
    next_compaction: NextCompaction | None = None
    """How far the next automatic compaction is, ours or the agent's that owns the session (None: not known)."""

    @property
    def counted(self) -> int:
        """Our count of the messages (``total`` unless that is the agent's figure)."""
        return self.total if self.estimated is None else self.estimated

    @property
    def percent(self) -> float:
        return round(100.0 * self.total / self.context_window, 1) if self.context_window else 0.0

    @property
    def level(self) -> str:
        """``critical`` at the threshold, ``warning`` near it: when the next automatic compaction is known, its own
        answer (``next_compaction.near``, the one owner of "near"), else the context against the thresholds."""
        upcoming = self.next_compaction
        if upcoming is not None and upcoming.threshold is not None:
            return "critical" if upcoming.tokens_left == 0 else "warning" if upcoming.near else "ok"
        if self.total >= self.auto_compact_threshold:
            return "critical"
        if self.total >= self.warning_threshold:
            return "warning"
        return "ok"


def build_usage(by_kind: Mapping[str, int], settings: EngineSettings, reported: int | None = None) -> ContextUsage:
    kinds = {k: int(by_kind.get(k, 0)) for k in KINDS}
    threshold = settings.auto_compact.threshold_for(settings.context_window)
    return ContextUsage(
        total=sum(kinds.values()),
        by_kind=kinds,
        context_window=settings.context_window,
        auto_compact_threshold=threshold,
        warning_threshold=near_point(threshold),
        reported=reported,
    )


_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}


def _packed(by_kind: dict[str, int]) -> tuple[int, ...]:
    """A message's tokens by kind as ``(kind's index in KINDS, tokens, ...)``: a tuple of a few ints is a third of
    a dict's size, and a long session keeps one for each of its thousands of messages."""
    return tuple(n for kind, tokens in by_kind.items() for n in (_KIND_INDEX[kind], tokens))


def _add(totals: dict[str, int], packed: tuple[int, ...]) -> None:
    for i in range(0, len(packed), 2):
        totals[KINDS[packed[i]]] += packed[i + 1]


class UsageLedger:
    """Per-message token counts kept beside a message list, so a change recounts only what changed."""

    def __init__(self, counter: TokenCounter, is_attachment: Callable[[str], bool] | None = None) -> None:
        self._counter = counter
        self._is_attachment = is_attachment
        self._messages: list[Message] = []
        self._counts: list[tuple[int, ...]] = []
        """Each message's tokens by kind, packed (``_packed``)."""
        self._totals: dict[str, int] = dict.fromkeys(KINDS, 0)
        self._largest: tuple[int, int, list[int]] | None = None
        """(limit, messages it covers, indexes) of the last ``largest``: appends since compare only what is new."""

    def sync(self, messages: list[Message]) -> None:
        """Bring the ledger in line with ``messages``; unchanged message objects (by identity) are not recounted."""
        old = self._messages
        same_prefix = 0
        for a, b in zip(old, messages, strict=False):
            if a is not b:
                break
            same_prefix += 1
        old_by_id = {id(m): c for m, c in zip(old[same_prefix:], self._counts[same_prefix:], strict=True)}
        counts = self._counts[:same_prefix]
        for message in messages[same_prefix:]:
            cached = old_by_id.get(id(message))
            counts.append(cached if cached is not None else self._count(message))
        self._messages = list(messages)
        self._counts = counts
        self._largest = None
        totals = dict.fromkeys(KINDS, 0)
        for c in counts:
            _add(totals, c)
        self._totals = totals

    def append(self, messages: list[Message]) -> None:
        for message in messages:
            c = self._count(message)
            self._messages.append(message)
            self._counts.append(c)
            _add(self._totals, c)

    def _count(self, message: Message) -> tuple[int, ...]:
        return _packed(message_kind_tokens(self._counter, message, self._is_attachment))

    def message_tokens(self, index: int) -> int:
        return sum(self._counts[index][1::2])

    def largest(self, limit: int) -> list[int]:
        """Indexes of the ``limit`` messages with the most tokens, biggest first and earlier first among equals
        (``heapq.nlargest`` over every index). After appends alone, only the new messages meet the last answer:
        a message that lost to it before still loses, so an append's status does not pass the whole history."""
        known = self._largest
        count = len(self._counts)
        if known is not None and known[0] == limit and known[1] <= count:
            candidates: Iterable[int] = [*known[2], *range(known[1], count)]
        else:
            candidates = range(count)
        top = heapq.nlargest(limit, candidates, key=self.message_tokens)
        self._largest = (limit, count, top)
        return list(top)

    @property
    def totals(self) -> dict[str, int]:
        return dict(self._totals)
