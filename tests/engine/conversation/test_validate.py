from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings

from compact_lsp.engine.conversation.validate import (
    INTERRUPTED_RESULT,
    LEADING_PLACEHOLDER,
    Problem,
    is_valid,
    repair,
    validate,
)
from strategies import conversations, raw_messages

Message = dict[str, Any]


def user(*blocks: Any) -> Message:
    return {"role": "user", "content": [text(b) if isinstance(b, str) else b for b in blocks]}


def assistant(*blocks: Any) -> Message:
    return {"role": "assistant", "content": [text(b) if isinstance(b, str) else b for b in blocks]}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def use(use_id: str, name: str = "Read") -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": {"file_path": "/a.py"}}


def result(use_id: str, content: Any = "ok", is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content, "is_error": is_error}


VALID = [
    pytest.param([user("hi")], id="one-user-message"),
    pytest.param([user("hi"), assistant("hello")], id="plain-exchange"),
    pytest.param([user("hi"), assistant("reading", use("t1")), user(result("t1"))], id="one-tool-round"),
    pytest.param(
        [user("hi"), assistant(use("t1"), use("t2")), user(result("t2"), result("t1"), "and then?")],
        id="parallel-calls-answered-out-of-order-then-text",
    ),
    pytest.param([user("hi"), assistant("let me look", use("t1"))], id="trailing-in-flight-call"),
    pytest.param([user("hi"), assistant(use("t1")), user(result("t1", ""))], id="empty-result-content"),
    pytest.param([user("hi"), assistant(use("t1")), user(result("t1", [], is_error=True))], id="empty-error-result"),
    pytest.param([], id="no-messages"),
]


@pytest.mark.parametrize("messages", VALID)
def test_valid_conversations_have_no_problems(messages: list[Message]) -> None:
    assert validate(messages) == []
    assert is_valid(messages)


INVALID = [
    pytest.param([assistant("hello")], [(0, None, "role-order")], id="starts-with-assistant"),
    pytest.param([user("a"), user("b")], [(1, None, "role-order")], id="two-user-messages"),
    pytest.param([user("a"), assistant("b"), assistant("c")], [(2, None, "role-order")], id="two-assistant-messages"),
    pytest.param([user("a"), {"role": "assistant", "content": []}], [(1, None, "empty-content")], id="empty-message"),
    pytest.param([user("a"), assistant("  ")], [(1, 0, "empty-text")], id="whitespace-text-block"),
    pytest.param([user(result("t9"))], [(0, 0, "orphan-tool-result")], id="result-with-no-call"),
    pytest.param(
        [user("a"), assistant(use("t1")), user(result("t1")), assistant("x"), user(result("t1"))],
        [(4, 0, "duplicate-tool-result")],
        id="result-repeated-later",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user(result("t1")), assistant("b"), user(result("t2"))],
        [(4, 0, "orphan-tool-result")],
        id="result-for-unknown-id",
    ),
    pytest.param(
        [user("a"), assistant(use("t1"), use("t2")), user(result("t1"))],
        [(1, 1, "unanswered-tool-use")],
        id="one-of-two-calls-unanswered",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user("no results here")],
        [(1, 0, "unanswered-tool-use")],
        id="call-answered-with-text-only",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user(result("t1")), assistant(use("t1")), user(result("t1"))],
        [(3, 0, "duplicate-tool-use-id"), (4, 0, "duplicate-tool-result")],
        id="tool-use-id-reused",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user("first", result("t1"))],
        [(2, 1, "tool-result-not-first")],
        id="result-after-text",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user(result("t1")), assistant(use("t2")), assistant("oops")],
        [(3, 0, "unanswered-tool-use"), (4, None, "role-order")],
        id="call-followed-by-assistant",
    ),
]


@pytest.mark.parametrize(("messages", "expected"), INVALID)
def test_invalid_conversations_report_each_problem_where_it_is(
    messages: list[Message], expected: list[tuple[int, int | None, str]]
) -> None:
    problems = validate(messages)
    assert [(p.message_index, p.block_index, p.code) for p in problems] == expected
    assert not is_valid(messages)
    assert all(p.message for p in problems)


def test_problem_reads_as_a_location_and_a_reason() -> None:
    problem = validate([user(result("t9"))])[0]
    assert str(problem).startswith("messages[0].content[0]: ")
    assert "'t9'" in str(problem)
    assert isinstance(problem, Problem)


REPAIRS = [
    pytest.param(
        [user(result("t9"), "hello")],
        [user("hello")],
        "dropped orphan tool_result for 't9'",
        id="drop-orphan-result",
    ),
    pytest.param(
        [user("a"), assistant(use("t1"), use("t2")), user(result("t2"))],
        [
            user("a"),
            assistant(use("t1"), use("t2")),
            user(
                {"type": "tool_result", "tool_use_id": "t1", "content": INTERRUPTED_RESULT, "is_error": True},
                result("t2"),
            ),
        ],
        "answered interrupted tool_use 't1'",
        id="answer-unanswered-call",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), assistant("done")],
        [
            user("a"),
            assistant(use("t1"), "done"),
        ],
        "merged assistant messages[2]",
        id="merge-then-keep-trailing-in-flight",
    ),
    pytest.param(
        [
            user("a"),
            assistant(use("t1")),
            user(result("t1")),
            assistant(use("t2")),
            user("go on"),
            assistant("ok"),
        ],
        [
            user("a"),
            assistant(use("t1")),
            user(result("t1")),
            assistant(use("t2")),
            user(
                {"type": "tool_result", "tool_use_id": "t2", "content": INTERRUPTED_RESULT, "is_error": True},
                "go on",
            ),
            assistant("ok"),
        ],
        "answered interrupted tool_use 't2'",
        id="answer-into-existing-user-message",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), assistant("b"), user("c")],
        [
            user("a"),
            assistant(use("t1"), "b"),
            user(
                {"type": "tool_result", "tool_use_id": "t1", "content": INTERRUPTED_RESULT, "is_error": True},
                "c",
            ),
        ],
        "merged assistant",
        id="merge-consecutive-assistants",
    ),
    pytest.param(
        [user("a"), {"role": "user", "content": []}, assistant("b")],
        [user("a"), assistant("b")],
        "dropped empty user message",
        id="drop-empty-message",
    ),
    pytest.param(
        [assistant("hello"), user("hi")],
        [user(LEADING_PLACEHOLDER), assistant("hello"), user("hi")],
        "placeholder user message",
        id="leading-assistant-gets-placeholder",
    ),
    pytest.param(
        [user("a"), assistant("b"), user(result("t9")), assistant("c")],
        [user("a"), assistant("b", "c")],
        "dropped orphan",
        id="orphan-only-message-dropped-then-assistants-merged",
    ),
    pytest.param(
        [user("a"), assistant(use("t1")), user("text first", result("t1"))],
        [user("a"), assistant(use("t1")), user(result("t1"), "text first")],
        "moved tool_result blocks",
        id="results-moved-first",
    ),
]


@pytest.mark.parametrize(("messages", "expected", "action"), REPAIRS)
def test_repair_fixes_what_the_api_rejects_and_says_so(
    messages: list[Message], expected: list[Message], action: str
) -> None:
    before = copy.deepcopy(messages)
    fixed = repair(messages)
    assert fixed.messages == expected
    assert validate(fixed.messages) == []
    assert any(action in a for a in fixed.actions), fixed.actions
    assert fixed.changed
    assert messages == before


@settings(max_examples=150, deadline=None)
@given(conversations())
def test_generated_conversations_are_valid_and_repair_leaves_them_alone(messages: list[Message]) -> None:
    assert validate(messages) == []
    fixed = repair(messages)
    assert fixed.messages == messages
    assert fixed.actions == []
    assert fixed.origins == list(range(len(messages)))


@settings(max_examples=200, deadline=None)
@given(raw_messages())
def test_repair_always_gives_a_valid_conversation_without_touching_its_input(messages: list[Message]) -> None:
    before = copy.deepcopy(messages)
    fixed = repair(messages)
    assert validate(fixed.messages) == []
    assert messages == before
    assert fixed.changed == (validate(messages) != [])
    again = repair(fixed.messages)
    assert again.messages == fixed.messages and again.actions == []


@pytest.mark.parametrize(
    ("messages", "origins"),
    [
        pytest.param([assistant("a"), user("b")], [None, 0, 1], id="placeholder-has-no-origin"),
        pytest.param([user("a"), user("b"), assistant("c")], [0, 2], id="merged-keeps-first-origin"),
        pytest.param([user("a"), assistant(use("t1")), assistant("b")], [0, 1], id="merged-assistants"),
        pytest.param(
            [user("a"), assistant("b"), user(result("t9")), assistant("c"), user("d")],
            [0, 1, 4],
            id="orphan-message-dropped",
        ),
    ],
)
def test_repair_tells_where_each_message_came_from(messages: list[Message], origins: list[int | None]) -> None:
    fixed = repair(messages)
    assert fixed.origins == origins
    assert all(o is None or fixed.messages[i]["role"] == messages[o]["role"] for i, o in enumerate(fixed.origins))
    assert all("__repair_origin__" not in m for m in fixed.messages)
