"""The user turns of a followed transcript's window, counted as it grows (``UserTurns``): the same figure as
counting the whole window again after every appended line, without the cost of it (docs/benchmarks.md)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.engine.conversation.next_compaction import UserTurns, user_turns


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def result() -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}


def assistant() -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": "done"}]}


STEPS = st.lists(
    st.sampled_from(["prompt", "notice", "result", "answer", "merge-into-last", "replace-history", "rewrite-last"]),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(steps=STEPS)
def test_counted_as_it_grows_it_is_the_count_of_the_whole(steps: list[str]) -> None:
    """Appends (a user message after a user message merged into it, as the history does), the last message
    replaced, the whole history replaced: after each, the kept count is the count of the whole."""
    messages: list[dict[str, Any]] = []
    turns = UserTurns()
    for step in steps:
        if step == "prompt":
            messages.append(user("fix the test"))
        elif step == "notice":
            messages.append(user("<system-reminder>files changed</system-reminder>"))
        elif step == "result":
            messages.append(result())
        elif step == "answer":
            messages.append(assistant())
        elif step == "merge-into-last" and messages and messages[-1]["role"] == "user":
            last = messages[-1]
            messages[-1] = {**last, "content": [*last["content"], {"type": "text", "text": "and the docs"}]}
        elif step == "rewrite-last" and messages:
            messages[-1] = result()
        elif step == "replace-history":
            messages = [user("summary of what came before"), *messages[-2:]]
        assert turns(messages) == user_turns(messages), step


@pytest.mark.parametrize("size", [1_000, 8_000])
def test_an_appended_line_counts_only_what_is_new(size: int) -> None:
    """Counting after an append looks at the new message and the one before it, not at the whole window."""
    messages = [m for n in range(size // 3) for m in (user(f"step {n}"), assistant(), result())]
    turns = UserTurns()
    assert turns(messages) == size // 3
    looked: list[int] = []

    class Watched(list[dict[str, Any]]):
        def __getitem__(self, index: Any) -> Any:
            got = super().__getitem__(index)
            looked.append(len(got) if isinstance(index, slice) else 1)
            return got

    watched = Watched(messages)
    turns(watched)  # another list: counted again from its start
    watched.append(user("one more"))
    looked.clear()
    assert turns(watched) == size // 3 + 1
    assert sum(looked) <= 4  # the last two messages and the one before them, whatever the size
