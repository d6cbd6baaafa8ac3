"""What a microcompaction plan is, and applying it: new messages plus the eviction record.

``microcompact.py`` decides (``plan_microcompaction``); this module only carries the decision out, so the
rules live in one place and applying stays a mechanical, checkable step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compact_lsp.engine.compaction.eviction import ClearedResult, EvictionRecord, ProtectedResult, Trigger
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Block, Message, blocks_of
from compact_lsp.engine.utc import iso_utc

MEDIA_PLACEHOLDER = "[image cleared]"
"""What an old image in a user message becomes."""


@dataclass(frozen=True, slots=True)
class PlannedClear:
    """One tool_result the plan clears, where it is and why."""

    message_index: int
    block_index: int
    tool_use_id: str
    tool: str
    """The request's tool name; names joined by "," for an ambiguous id; "" when no request was found."""
    paths: list[str]
    tokens: int
    """Tokens of the result before clearing."""
    reason: str
    saved: int = 0
    """Tokens saved by clearing it (``tokens`` minus the marker's)."""
    is_read: bool = False
    """A read_tools result: its paths leave history and the read-file state must learn so."""
    unresolved: bool = False
    """Its request, or for a read its single path, could not be found."""


@dataclass(frozen=True, slots=True)
class PlannedMedia:
    """One image block in a user message that becomes ``MEDIA_PLACEHOLDER``."""

    message_index: int
    block_index: int
    tokens: int
    saved: int


@dataclass(frozen=True)
class MicrocompactPlan:
    trigger: Trigger
    clear: list[PlannedClear]
    protected: list[ProtectedResult]
    kept_recent: list[str]
    """Ids of the most recent compactable results the plan keeps: all ``effective_keep_recent`` of them, except
    under the size trigger when they alone exceed the low watermark (then at least the most recent one)."""
    tokens_before: int
    """Message tokens of the whole conversation before the plan."""
    tokens_after: int
    tokens_saved: int
    tool_result_tokens_before: int = 0
    tool_result_tokens_after: int = 0
    media: list[PlannedMedia] = field(default_factory=list)
    created_at: float = 0.0
    """Epoch seconds the plan was made (``now``)."""


@dataclass(frozen=True)
class MicrocompactResult:
    messages: list[Message]
    eviction: EvictionRecord


def distinct(values: Sequence[str | None]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def _cleared_block(block: Block) -> Block:
    cleared: Block = {
        "type": "tool_result",
        "tool_use_id": block["tool_use_id"],
        "content": CLEARED_TOOL_RESULT,
    }
    if "cache_control" in block:  # keep the client's cache breakpoints where they were
        cleared["cache_control"] = block["cache_control"]
    return cleared


def apply_plan(messages: Sequence[Message], plan: MicrocompactPlan) -> MicrocompactResult:
    """New messages with the plan applied, and the eviction record; raises ValueError if the plan is stale.

    Untouched messages are the same objects as in ``messages``; changed ones are shallow copies with a new
    content list. Nothing in ``messages`` is mutated, so a failure leaves the conversation exactly as it was.
    """
    edits: dict[int, dict[int, Callable[[Block], Block]]] = {}
    for c in plan.clear:
        block = _block_at(messages, c.message_index, c.block_index)
        if block.get("type") != "tool_result" or block.get("tool_use_id") != c.tool_use_id:
            raise ValueError(
                f"stale microcompaction plan: message {c.message_index} block {c.block_index} "
                f"is not the result of {c.tool_use_id}"
            )
        edits.setdefault(c.message_index, {})[c.block_index] = _cleared_block
    for m in plan.media:
        block = _block_at(messages, m.message_index, m.block_index)
        if block.get("type") != "image":
            raise ValueError(
                f"stale microcompaction plan: message {m.message_index} block {m.block_index} is not an image"
            )
        edits.setdefault(m.message_index, {})[m.block_index] = lambda _b: {
            "type": "text",
            "text": MEDIA_PLACEHOLDER,
        }

    out = list(messages)
    for i, by_block in edits.items():
        original = messages[i]
        content = [by_block[j](b) if j in by_block else b for j, b in enumerate(blocks_of(original))]
        out[i] = {**original, "content": content}

    evicted: list[str] = []
    for c in plan.clear:
        if c.is_read:
            evicted.extend(c.paths)
    eviction = EvictionRecord(
        trigger=plan.trigger,
        tokens_before=plan.tokens_before,
        tokens_after=plan.tokens_after,
        cleared=[ClearedResult(c.tool_use_id, c.tool, list(c.paths), c.tokens) for c in plan.clear],
        protected=list(plan.protected),
        evicted_read_paths=distinct(evicted),
        unresolved=[c.tool_use_id for c in plan.clear if c.unresolved],
        created_at=iso_utc(plan.created_at, milliseconds=True),
        media_cleared=len(plan.media),
    )
    return MicrocompactResult(messages=out, eviction=eviction)


def _block_at(messages: Sequence[Message], message_index: int, block_index: int) -> Block:
    try:
        return blocks_of(messages[message_index])[block_index]
    except IndexError:
        raise ValueError(f"stale microcompaction plan: no block {block_index} in message {message_index}") from None
