"""The loopback Messages API stub itself: what the real SDK reads back from it (others build on it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from support.messages_api_stub import MessagesApiStub, StubResponse, reply, tool_call

HELLO: list[Any] = [{"role": "user", "content": "hello"}]


@pytest.fixture
def messages_api() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as stub:
        yield stub


def client(stub: MessagesApiStub) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="test-key", base_url=stub.base_url, max_retries=0)


@pytest.mark.parametrize("streaming", [pytest.param(True, id="streamed"), pytest.param(False, id="json")])
async def test_tool_calls_arrive_with_their_input(messages_api: MessagesApiStub, streaming: bool) -> None:
    tool_input = {"file_path": "/src/app.py", "offset": 10, "limit": 40, "note": 'ünïcode and "quotes"'}
    messages_api.push(tool_call("Read", tool_input, text="Let me look.", tool_id="toolu_abc"))
    async with client(messages_api) as api:
        if streaming:
            async with api.messages.stream(model="m", max_tokens=100, messages=HELLO) as stream:
                message = await stream.get_final_message()
        else:
            message = await api.messages.create(model="m", max_tokens=100, messages=HELLO)
    assert message.stop_reason == "tool_use"
    text, use = message.content
    assert text.type == "text" and text.text == "Let me look."
    assert use.type == "tool_use" and use.id == "toolu_abc" and use.name == "Read" and use.input == tool_input
    assert messages_api.requests[0].stream is streaming


async def test_thinking_and_long_text_stream_in_pieces(messages_api: MessagesApiStub) -> None:
    long_text = "word " * 100
    messages_api.push(
        StubResponse(content=[{"type": "thinking", "thinking": "hmm " * 20}, {"type": "text", "text": long_text}])
    )
    deltas = 0
    async with (
        client(messages_api) as api,
        api.messages.stream(model="m", max_tokens=100, messages=HELLO) as stream,
    ):
        async for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                deltas += 1
        message = await stream.get_final_message()
    assert deltas > 1
    assert message.content[0].type == "thinking" and message.content[1].type == "text"
    assert message.content[1].text == long_text


async def test_an_empty_queue_answers_the_default_or_a_clear_error(messages_api: MessagesApiStub) -> None:
    async with client(messages_api) as api:
        with pytest.raises(anthropic.InternalServerError, match="no scripted response left"):
            await api.messages.create(model="m", max_tokens=10, messages=HELLO)
        messages_api.default = reply("always this")
        message = await api.messages.create(model="m", max_tokens=10, messages=HELLO)
    assert message.content[0].type == "text" and message.content[0].text == "always this"
    assert [r.body["messages"] for r in messages_api.requests] == [HELLO, HELLO]
