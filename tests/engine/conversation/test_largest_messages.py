"""The usage ledger's ``largest`` (what ``compact/status`` splits into its biggest items) answers as a full pass
over every message would, whether the history only grew or was rewritten in between."""

from __future__ import annotations

import heapq

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.engine.files.test_read_state import WordCounter

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.usage import UsageLedger


def _message(words: int) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": " ".join(["w"] * words)}]}


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.lists(st.integers(0, 6), min_size=1, max_size=4)),
        st.tuples(st.just("rewrite"), st.lists(st.integers(0, 6), min_size=1, max_size=2)),
        st.tuples(st.just("look"), st.lists(st.integers(1, 4), min_size=1, max_size=1)),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_largest_is_a_full_pass_over_the_messages(steps: list[tuple[str, list[int]]]) -> None:
    ledger = UsageLedger(WordCounter())
    messages: list[Message] = []
    for kind, values in steps:
        if kind == "append":
            new = [_message(v) for v in values]
            messages.extend(new)
            ledger.append(new)
        elif kind == "rewrite" and messages:  # microcompaction: a message replaced, the ledger synced
            messages = list(messages)
            messages[values[0] % len(messages)] = _message(values[-1])
            ledger.sync(messages)
        limit = values[0] if kind == "look" else 3
        expected = heapq.nlargest(limit, range(len(messages)), key=ledger.message_tokens)
        assert ledger.largest(limit) == expected
