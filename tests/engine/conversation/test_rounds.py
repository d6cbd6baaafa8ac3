from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.engine.conversation.rounds import (
    ApiRound,
    group_rounds,
    recent_rounds_start,
    round_boundaries,
    round_of,
    suffix_needs_user,
)
from compact_lsp.engine.conversation.validate import validate
from strategies import conversations, raw_messages

Message = dict[str, Any]


def user(*blocks: Any) -> Message:
    return {
        "role": "user",
        "content": [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks],
    }


def assistant(*blocks: Any) -> Message:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks],
    }


def use(use_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": "Bash", "input": {"command": "ls"}}


def result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": "ok"}


GROUPINGS = [
    pytest.param([], [], id="empty"),
    pytest.param([user("hi")], [(0, 1)], id="leading-user-alone"),
    pytest.param([user("hi"), assistant("hello")], [(0, 1), (1, 2)], id="plain-reply"),
    pytest.param(
        [user("hi"), assistant(use("t1")), user(result("t1")), assistant("done")],
        [(0, 1), (1, 3), (3, 4)],
        id="call-with-its-results",
    ),
    pytest.param(
        [user("hi"), assistant("hello"), user("next question"), assistant("answer")],
        [(0, 1), (1, 2), (2, 3), (3, 4)],
        id="prompt-starts-its-own-round",
    ),
    pytest.param(
        [user("hi"), assistant(use("t1")), user(result("t1"), "also this"), assistant("ok")],
        [(0, 1), (1, 3), (3, 4)],
        id="results-with-text-stay-with-the-call",
    ),
    pytest.param(
        [user("hi"), assistant(use("t1"))],
        [(0, 1), (1, 2)],
        id="trailing-in-flight-call",
    ),
    pytest.param(
        [
            user("hi"),
            assistant("part one", use("t1")),
            assistant(use("t2")),
            user(result("t1"), result("t2")),
        ],
        [(0, 1), (1, 4)],
        id="split-assistant-messages-stay-together",
    ),
]


@pytest.mark.parametrize(("messages", "expected"), GROUPINGS)
def test_group_rounds(messages: list[Message], expected: list[tuple[int, int]]) -> None:
    assert group_rounds(messages) == [ApiRound(s, e) for s, e in expected]


def test_round_of_finds_the_round_holding_a_tool_result() -> None:
    messages = [user("hi"), assistant(use("t1")), user(result("t1")), assistant("done")]
    assert round_of(messages, 2) == ApiRound(1, 3)
    assert len(round_of(messages, 2)) == 2
    with pytest.raises(IndexError, match="outside"):
        round_of(messages, 4)


def one_per_message(message: Message) -> int:
    return 10


@pytest.mark.parametrize(
    ("budget", "min_rounds", "expected_cut"),
    [
        pytest.param(0, 0, 4, id="nothing-fits"),
        pytest.param(0, 1, 3, id="min-one-round-kept-over-budget"),
        pytest.param(10, 1, 3, id="last-reply-only"),
        pytest.param(25, 1, 3, id="a-round-is-never-split-to-fit"),
        pytest.param(30, 1, 1, id="call-and-results-together"),
        pytest.param(1000, 1, 0, id="everything-fits"),
    ],
)
def test_recent_rounds_start_keeps_whole_rounds_within_budget(budget: int, min_rounds: int, expected_cut: int) -> None:
    messages = [user("hi"), assistant(use("t1")), user(result("t1")), assistant("done")]
    assert recent_rounds_start(messages, budget, one_per_message, min_rounds=min_rounds) == expected_cut


PLACEHOLDER = {"role": "user", "content": [{"type": "text", "text": "summary"}]}


@settings(max_examples=150, deadline=None)
@given(conversations())
def test_cutting_at_any_boundary_leaves_both_sides_valid(messages: list[Message]) -> None:
    rounds = group_rounds(messages)
    assert [i for r in rounds for i in range(r.start, r.end)] == list(range(len(messages)))
    for cut in round_boundaries(messages):
        prefix, suffix = messages[:cut], messages[cut:]
        assert validate(prefix) == []
        if suffix_needs_user(messages, cut):
            suffix = [PLACEHOLDER, *suffix]
        assert validate(suffix) == []


@settings(max_examples=100, deadline=None)
@given(conversations(min_rounds=1), st.integers(0, 3000), st.integers(0, 3))
def test_budget_cut_is_a_boundary(messages: list[Message], budget: int, min_rounds: int) -> None:
    cut = recent_rounds_start(messages, budget, lambda m: len(str(m)), min_rounds=min_rounds)
    assert cut in round_boundaries(messages)


@settings(max_examples=100, deadline=None)
@given(raw_messages())
def test_rounds_cover_any_input_exactly_once(messages: list[Message]) -> None:
    rounds = group_rounds(messages)
    assert [i for r in rounds for i in range(r.start, r.end)] == list(range(len(messages)))
