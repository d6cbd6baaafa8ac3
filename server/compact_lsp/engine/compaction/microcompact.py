"""Microcompaction: clear old tool results in place, keeping recent and protected ones.

Two steps, both pure. ``plan_microcompaction`` decides whether a trigger fires and which results to clear;
``apply_plan`` returns new messages plus an ``EvictionRecord`` (what left history, for the read-file state and
the ``compact.microcompact`` result). The input list and its messages are never mutated, and messages the plan
does not touch are returned as the same objects so a ``UsageLedger`` recounts only what changed.

Rules, in the order they are applied:

- A tool_result is tied to its request through its ``tool_use_id``: every tool_use with that id anywhere in
  the messages. Its tool is the request's name, its paths the requests' ``file_path`` (or ``path`` or
  ``absolute_path``).
- Never cleared, and using no keep-recent slot: errors, already-cleared results, empty results, results of
  tools outside ``settings.compactable_tools``. A result whose request cannot be found has no known tool; it
  is cleared like a compactable one (the API rejects such orphans anyway, and ``repair`` drops them) and
  reported as unresolved.
- Protected before any plan, using no slot: successful reads (``read_tools``) whose every path satisfies
  ``preserve_read`` (managed memory). An id used with several paths is protected only if all of them are; a
  result whose request or path cannot be found is never protected.
- Kept, by every trigger: the ``settings.effective_keep_recent`` most recent remaining results, and every result
  of the round the model has not answered yet (the results after the last assistant message: parallel calls'
  results arrive together, and the model asked for them; clearing them saves nothing anyone could save).
- Triggers: ``idle`` (``idle_minutes`` since the last assistant response) and ``forced`` clear every other
  result; ``size`` fires only when the tokens of the results outside the kept ones that it may clear
  (compactable, not yet cleared, not errors, not protected) exceed the size trigger
  (``MicrocompactSettings.size_trigger_tokens``, a share of the window) and then clears all of them: the low
  watermark is as low as it goes, so the next rewrite waits for another threshold's worth of results. Every
  rewrite breaks the prompt cache (each later request pays the whole prefix again), so each must buy a lot;
  clearing one result per round near a threshold is the storm this avoids.
- A result is only cleared if that saves tokens (a two-token "ok" would grow into the marker).
- Media: on the idle and forced triggers, image blocks directly in user messages before the kept window (the
  message of the oldest kept result, or the last user message if that is earlier) become
  ``MEDIA_PLACEHOLDER``. Images inside a cleared result go with the rest of its content, which becomes
  exactly ``CLEARED_TOOL_RESULT``. Images inside results that are not cleared are left alone.

Token figures: ``tokens_before``/``tokens_after`` are the whole conversation's message tokens (what context
usage shows, without the system prompt), ``tool_result_tokens_before``/``_after`` all tool results, cleared
markers included. The size trigger measures only the clearable part: counting markers, errors, protected reads
and kept results, which no rewrite can shrink, would make a long session rewrite its history on every append.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compact_lsp.engine.compaction.eviction import TRIGGERS, ProtectedResult, Trigger
from compact_lsp.engine.compaction.microcompact_plan import (
    MEDIA_PLACEHOLDER,
    MicrocompactPlan,
    MicrocompactResult,
    PlannedClear,
    PlannedMedia,
    apply_plan,
    distinct,
)
from compact_lsp.engine.conversation.messages import (
    CLEARED_TOOL_RESULT,
    Block,
    Message,
    blocks_of,
    is_cleared,
    is_empty_result,
)
from compact_lsp.engine.conversation.tokens import MESSAGE_OVERHEAD_TOKENS, TokenCounter
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.settings import MicrocompactSettings
from compact_lsp.engine.tool_names import DEFAULT_READ_TOOLS

logger = logging.getLogger(__name__)


def tool_result_tokens(messages: Sequence[Message], counter: TokenCounter) -> int:
    """Tokens of every tool_result block in the messages (the size trigger measures the clearable part of it)."""
    return sum(
        counter.count_block(b)
        for m in messages
        if m.get("role") == "user"
        for b in blocks_of(m)
        if b.get("type") == "tool_result"
    )


def idle_due(settings: MicrocompactSettings, now: float | None, last_assistant_at: float | None) -> bool:
    """The idle trigger fires: it is on and the last assistant response is at least ``idle_minutes`` old."""
    if settings.idle_minutes == -1 or last_assistant_at is None:
        return False
    current = time.time() if now is None else now
    return current - last_assistant_at >= settings.idle_minutes * 60


@dataclass(frozen=True, slots=True)
class _Candidate:
    message_index: int
    block_index: int
    tool_use_id: str
    tool: str
    paths: list[str]
    tokens: int
    is_read: bool
    unresolved: bool


@dataclass
class _Inventory:
    """What one pass over the messages found: token totals, the results a trigger may clear, the protected ones,
    the images in user messages (message index, block index, tokens) and the last user message."""

    total: int = 0
    results_total: int = 0
    candidates: list[_Candidate] = field(default_factory=list)
    protected: list[ProtectedResult] = field(default_factory=list)
    images: list[tuple[int, int, int]] = field(default_factory=list)
    last_user: int = -1
    last_assistant: int = -1


@dataclass(frozen=True)
class _Rules:
    """What decides whether a result is a candidate, protected or left alone."""

    compactable: frozenset[str]
    reads: frozenset[str]
    pinned: frozenset[str]
    preserve_read: Callable[[str], bool] | None


def _request_index(messages: Sequence[Message]) -> dict[str, list[Block]]:
    """Every tool_use block by its id (an id may be used more than once)."""
    index: dict[str, list[Block]] = {}
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for block in blocks_of(message):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                index.setdefault(block["id"], []).append(block)
    return index


def _request_path(use: Block) -> str | None:
    data = use.get("input")
    return input_path(data) if isinstance(data, dict) else None


def _classify(
    block: Block, position: tuple[int, int], tokens: int, uses: list[Block], rules: _Rules
) -> _Candidate | ProtectedResult | None:
    """One tool_result: a candidate for clearing, protected (pinned, or a managed-memory read), or None when it is
    never cleared (an error, already cleared, empty, or a tool outside the compactable ones)."""
    if block.get("is_error") or is_cleared(block) or is_empty_result(block):
        return None
    tool_use_id = str(block.get("tool_use_id", ""))
    use_paths = [_request_path(u) for u in uses]
    if tool_use_id in rules.pinned:
        return ProtectedResult(tool_use_id, distinct(use_paths))
    names = distinct([u.get("name") for u in uses])
    if uses and not all(name in rules.compactable for name in names):
        return None
    paths = distinct(use_paths)
    # an id shared by a read and another tool may have carried file content: treat it as a read for eviction
    # (re-reading is the safe side), but protect only when every request is a read
    is_read = any(name in rules.reads for name in names)
    only_reads = bool(uses) and all(name in rules.reads for name in names)
    all_paths_known = bool(uses) and all(p is not None for p in use_paths)
    preserve = rules.preserve_read
    if preserve is not None and only_reads and all_paths_known and all(preserve(p) for p in paths):
        return ProtectedResult(tool_use_id, paths)
    unresolved = not uses or (is_read and (not all_paths_known or len(paths) != 1))
    message_index, block_index = position
    return _Candidate(message_index, block_index, tool_use_id, ",".join(names), paths, tokens, is_read, unresolved)


def _inventory(messages: Sequence[Message], counter: TokenCounter, rules: _Rules) -> _Inventory:
    """One pass over the messages: count every block, sort each tool_result, note the images in user messages."""
    requests = _request_index(messages)
    found = _Inventory()
    for i, message in enumerate(messages):
        found.total += MESSAGE_OVERHEAD_TOKENS
        is_user = message.get("role") == "user"
        if is_user:
            found.last_user = i
        elif message.get("role") == "assistant":
            found.last_assistant = i
        for j, block in enumerate(blocks_of(message)):
            tokens = counter.count_block(block)
            found.total += tokens
            kind = block.get("type")
            if is_user and kind == "image":
                found.images.append((i, j, tokens))
            if not is_user or kind != "tool_result":
                continue
            found.results_total += tokens
            uses = requests.get(str(block.get("tool_use_id", "")), [])
            verdict = _classify(block, (i, j), tokens, uses, rules)
            if isinstance(verdict, ProtectedResult):
                found.protected.append(verdict)
            elif verdict is not None:
                found.candidates.append(verdict)
    return found


def _clear_order(
    trigger: Trigger, settings: MicrocompactSettings, older: list[_Candidate]
) -> list[tuple[_Candidate, str]]:
    """The results the trigger clears, in order, each with its reason: every result outside the kept ones (one
    string for all of them: a copy each was a ninth of what a plan and its result hold at 20k messages)."""
    if trigger != "size":
        reason = f"{trigger}: older than the {settings.effective_keep_recent} most recent compactable results"
    else:
        over = settings.size_trigger_tokens()
        reason = f"size: results outside the kept ones over {over} tokens, all of them cleared"
    return [(c, reason) for c in older]


def kept_results(candidates: list[_Candidate], keep: int, last_assistant: int) -> list[_Candidate]:
    """The ``keep`` most recent results, and every result of the round the model has not answered yet (after the
    last assistant message: results of parallel calls arrive together, and no one has read them)."""
    unanswered = sum(1 for c in candidates if c.message_index > last_assistant)
    count = max(keep, unanswered)
    return candidates[-count:] if count else []


def _planned_clears(order: list[tuple[_Candidate, str]], marker_tokens: int) -> list[PlannedClear]:
    """Clear in order, skipping results the marker would not shrink."""
    clear: list[PlannedClear] = []
    for c, reason in order:
        saved = c.tokens - marker_tokens
        if saved <= 0:
            continue
        clear.append(
            PlannedClear(
                message_index=c.message_index,
                block_index=c.block_index,
                tool_use_id=c.tool_use_id,
                tool=c.tool,
                paths=c.paths,
                tokens=c.tokens,
                reason=reason,
                saved=saved,
                is_read=c.is_read,
                unresolved=c.unresolved,
            )
        )
    return clear


def _planned_media(found: _Inventory, kept: list[_Candidate], counter: TokenCounter) -> list[PlannedMedia]:
    """Images in user messages before the kept window that the placeholder would shrink."""
    if not found.images:
        return []
    window_start = min(kept[0].message_index, found.last_user) if kept else found.last_user
    placeholder_tokens = counter.count_block({"type": "text", "text": MEDIA_PLACEHOLDER})
    return [
        PlannedMedia(i, j, tokens, tokens - placeholder_tokens)
        for i, j, tokens in found.images
        if i < window_start and tokens > placeholder_tokens
    ]


def plan_microcompaction(
    messages: Sequence[Message],
    settings: MicrocompactSettings,
    trigger: Trigger,
    *,
    counter: TokenCounter,
    preserve_read: Callable[[str], bool] | None = None,
    read_tools: Sequence[str] = DEFAULT_READ_TOOLS,
    now: float | None = None,
    last_assistant_at: float | None = None,
    pinned: frozenset[str] = frozenset(),
) -> MicrocompactPlan | None:
    """Decide what ``trigger`` would clear; None when it does not fire or nothing would be cleared. Results of the
    tool_use ids in ``pinned`` (``compact/pin``) are protected."""
    if trigger not in TRIGGERS:
        raise ValueError(f"unknown microcompaction trigger {trigger!r}; expected one of {', '.join(TRIGGERS)}")
    current = time.time() if now is None else now
    if trigger == "idle" and not idle_due(settings, current, last_assistant_at):
        return None
    if trigger == "size" and settings.size_trigger_tokens() == -1:
        return None

    rules = _Rules(frozenset(settings.compactable_tools), frozenset(read_tools), pinned, preserve_read)
    found = _inventory(messages, counter, rules)
    candidates = found.candidates
    kept = kept_results(candidates, settings.effective_keep_recent, found.last_assistant)
    older = candidates[: len(candidates) - len(kept)]

    # The size trigger measures what it would clear: the results outside the kept ones. Cleared markers, errors,
    # protected reads and the kept results stay whatever happens, so counting them would fire on every append of a
    # long session; and it clears all of them, so the next rewrite waits for another threshold's worth of results.
    clearable = sum(c.tokens for c in older)
    if trigger == "size" and clearable <= settings.size_trigger_tokens():
        return None

    order = _clear_order(trigger, settings, older)
    clear = _planned_clears(order, counter.count_text(CLEARED_TOOL_RESULT))
    media = [] if trigger == "size" else _planned_media(found, kept, counter)
    if not clear and not media:
        return None
    cleared_at = {(c.message_index, c.block_index) for c in clear}
    saved_total = sum(c.saved for c in clear) + sum(m.saved for m in media)
    logger.debug("microcompaction (%s): %d clears, %d images, %d tokens", trigger, len(clear), len(media), saved_total)
    return MicrocompactPlan(
        trigger=trigger,
        clear=clear,
        protected=found.protected,
        kept_recent=[c.tool_use_id for c in kept if (c.message_index, c.block_index) not in cleared_at],
        tokens_before=found.total,
        tokens_after=found.total - saved_total,
        tokens_saved=saved_total,
        tool_result_tokens_before=found.results_total,
        tool_result_tokens_after=found.results_total - sum(c.saved for c in clear),
        media=media,
        created_at=current,
    )


def microcompact(
    messages: Sequence[Message],
    settings: MicrocompactSettings,
    trigger: Trigger,
    *,
    counter: TokenCounter,
    preserve_read: Callable[[str], bool] | None = None,
    read_tools: Sequence[str] = DEFAULT_READ_TOOLS,
    now: float | None = None,
    last_assistant_at: float | None = None,
) -> MicrocompactResult | None:
    """Plan and apply in one step; None when the trigger does not fire or nothing would be cleared."""
    plan = plan_microcompaction(
        messages,
        settings,
        trigger,
        counter=counter,
        preserve_read=preserve_read,
        read_tools=read_tools,
        now=now,
        last_assistant_at=last_assistant_at,
    )
    return None if plan is None else apply_plan(messages, plan)
