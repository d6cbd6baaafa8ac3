"""Properties of microcompaction on random valid conversations (hypothesis)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compact_lsp.engine.compaction.eviction import TRIGGERS, Trigger
from compact_lsp.engine.compaction.microcompact import plan_microcompaction
from compact_lsp.engine.compaction.microcompact_plan import apply_plan
from compact_lsp.engine.conversation.messages import (
    CLEARED_TOOL_RESULT,
    Message,
    blocks_of,
    is_cleared,
    is_empty_result,
)
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import validate
from compact_lsp.engine.settings import MicrocompactSettings
from strategies import COMPACTABLE_TOOLS, MEMORY_ROOT, READ_TOOLS, conversations, raw_messages

NOW = 1_780_000_000.0


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def preserve_read(path: str) -> bool:
    return path.startswith(MEMORY_ROOT + "/")


microcompact_settings = st.builds(
    MicrocompactSettings,
    keep_recent=st.integers(0, 4),  # below 0 is refused where it is built
    idle_minutes=st.sampled_from([-1, 0, 30, 60]),
    # small thresholds too: there the kept results alone exceed the watermark and the window must give way
    size_threshold_tokens=st.one_of(st.just(-1), st.integers(1, 300), st.integers(1, 3_000)),
    compactable_tools=st.just(COMPACTABLE_TOOLS),
)


def expected_roles(messages: list[Message], keep: int) -> tuple[list[str], list[str]]:
    """An independent oracle: (protected ids, the keep-recent window's ids) by the rules of issue 2."""
    requests = {
        b["id"]: b for m in messages if m["role"] == "assistant" for b in blocks_of(m) if b["type"] == "tool_use"
    }
    protected: list[str] = []
    compactable: list[str] = []
    last_assistant = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    unanswered = 0
    for index, message in enumerate(messages):
        for block in blocks_of(message):
            if block.get("type") != "tool_result":
                continue
            request = requests[block["tool_use_id"]]
            if block.get("is_error") or is_empty_result(block) or is_cleared(block):
                continue
            if request["name"] not in COMPACTABLE_TOOLS:
                continue
            if request["name"] in READ_TOOLS and preserve_read(request["input"]["file_path"]):
                protected.append(block["tool_use_id"])
            else:
                compactable.append(block["tool_use_id"])
                unanswered += index > last_assistant
    # the keep-recent window, and every result of the round the model has not answered yet
    return protected, compactable[-max(1, keep, unanswered) :]


def results_by_id(messages: list[Message]) -> dict[str, dict[str, Any]]:
    return {b["tool_use_id"]: b for m in messages for b in blocks_of(m) if b.get("type") == "tool_result"}


def total_tokens(counter: TiktokenCounter, messages: list[Message]) -> int:
    return sum(counter.count_message(m) for m in messages)


@pytest.mark.parametrize("trigger", TRIGGERS)
@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=conversations(min_rounds=3, max_rounds=10), mc=microcompact_settings)
def test_plans_keep_conversations_valid_smaller_and_spare_protected_and_recent(
    counter: TiktokenCounter, trigger: Trigger, messages: list[Message], mc: MicrocompactSettings
) -> None:
    snapshot = copy.deepcopy(messages)
    plan = plan_microcompaction(
        messages,
        mc,
        trigger,
        counter=counter,
        preserve_read=preserve_read,
        now=NOW,
        last_assistant_at=NOW - 3_600,
    )
    if plan is None:
        return
    result = apply_plan(messages, plan)
    out = result.messages

    assert messages == snapshot, "the input was mutated"
    assert validate(out) == []
    assert total_tokens(counter, out) <= total_tokens(counter, messages)
    assert total_tokens(counter, out) == plan.tokens_after

    protected, window = expected_roles(messages, mc.keep_recent)
    assert [p.tool_use_id for p in plan.protected] == protected
    before, after = results_by_id(messages), results_by_id(out)
    assert plan.kept_recent == window  # every trigger keeps the window, the unanswered round included
    for tool_use_id in protected + plan.kept_recent:
        assert after[tool_use_id] is before[tool_use_id]
    for cleared in result.eviction.cleared:
        assert after[cleared.tool_use_id] == {
            "type": "tool_result",
            "tool_use_id": cleared.tool_use_id,
            "content": CLEARED_TOOL_RESULT,
        }
    changed = {c.message_index for c in plan.clear} | {m.message_index for m in plan.media}
    for i, (old, new) in enumerate(zip(messages, out, strict=True)):
        assert (old is not new) == (i in changed)


@settings(max_examples=50, deadline=None)
@given(messages=conversations(min_rounds=3, max_rounds=10), mc=microcompact_settings)
def test_forced_twice_has_nothing_left_to_clear(
    counter: TiktokenCounter, messages: list[Message], mc: MicrocompactSettings
) -> None:
    plan = plan_microcompaction(messages, mc, "forced", counter=counter, preserve_read=preserve_read, now=NOW)
    if plan is None:
        return
    once = apply_plan(messages, plan).messages
    assert plan_microcompaction(once, mc, "forced", counter=counter, preserve_read=preserve_read, now=NOW) is None


size_settings = st.builds(
    MicrocompactSettings,
    keep_recent=st.integers(1, 4),
    size_threshold_tokens=st.integers(1, 100),
    compactable_tools=st.just(COMPACTABLE_TOOLS),
)
"""The size trigger on thresholds low enough that it fires often."""


@settings(max_examples=50, deadline=None)
@given(messages=conversations(min_rounds=4, max_rounds=12), mc=size_settings)
def test_size_plans_clear_everything_outside_the_kept_window(
    counter: TiktokenCounter, messages: list[Message], mc: MicrocompactSettings
) -> None:
    plan = plan_microcompaction(messages, mc, "size", counter=counter, preserve_read=preserve_read, now=NOW)
    if plan is None:
        return
    # The trigger measured the results outside the kept ones and clears all of them: nothing is left for a
    # forced clearing with the same window, so the next rewrite waits for another threshold's worth of results.
    cleared = apply_plan(messages, plan).messages
    assert plan_microcompaction(cleared, mc, "forced", counter=counter, preserve_read=preserve_read) is None
    assert plan_microcompaction(cleared, mc, "size", counter=counter, preserve_read=preserve_read) is None


@settings(max_examples=60, deadline=None)
@given(messages=raw_messages(max_size=12), mc=microcompact_settings, trigger=st.sampled_from(TRIGGERS))
def test_malformed_conversations_are_never_mutated_nor_grown(
    counter: TiktokenCounter, messages: list[Message], mc: MicrocompactSettings, trigger: Trigger
) -> None:
    """Orphan results, repeated ids and empty messages: planning still works and only shrinks."""
    snapshot = copy.deepcopy(messages)
    plan = plan_microcompaction(
        messages, mc, trigger, counter=counter, preserve_read=lambda _p: True, now=NOW, last_assistant_at=0.0
    )
    if plan is None:
        return
    out = apply_plan(messages, plan).messages
    assert messages == snapshot
    assert total_tokens(counter, out) == plan.tokens_after <= total_tokens(counter, messages)
