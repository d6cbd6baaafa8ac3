"""The loopback Messages API stub itself: what the real SDK reads back from it (others build on it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from tests.support.messages_api_stub import MessagesApiStub, StubResponse, reply, tool_call

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


TOOL = {"name": "Read", "input_schema": {"type": "object"}}
CALL: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.py"}}
RESULT: dict[str, Any] = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "print(1)"}
PNG = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}


def turns(*contents: Any) -> list[dict[str, Any]]:
    """Alternating turns from the user's, one per content."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": c} for i, c in enumerate(contents)]


REFUSED = [
    pytest.param({"messages": turns("go", [CALL], [RESULT])}, "must define tools", id="tool-blocks-without-tools"),
    pytest.param(
        {"messages": turns("go", [CALL], "next"), "tools": [TOOL]},
        "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
        id="tool-use-unanswered",
    ),
    pytest.param(
        {"messages": turns("go", [CALL], [{"type": "text", "text": "first"}, RESULT]), "tools": [TOOL]},
        "`tool_use` ids were found without `tool_result` blocks immediately after",
        id="tool-result-not-first",
    ),
    pytest.param(
        {"messages": turns([RESULT]), "tools": [TOOL]},
        "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1",
        id="tool-result-without-its-call",
    ),
    pytest.param(
        {"messages": turns("a", "b", "c")[1:]}, 'first message must use the "user" role', id="assistant-first"
    ),
    pytest.param(
        {"messages": turns([{"type": "text", "text": ""}])}, "text content blocks must be non-empty", id="empty-text"
    ),
    pytest.param(
        {"messages": turns([{"type": "text", "text": " \n"}])},
        "text content blocks must contain non-whitespace text",
        id="blank-text",
    ),
    pytest.param(
        {"messages": turns("go", [], "more")},
        "messages.1: all messages must have non-empty content except for the optional final assistant message",
        id="empty-content",
    ),
    pytest.param({"max_tokens": None}, "max_tokens: Field required", id="max-tokens-missing"),
    pytest.param(
        {"model": "claude-3-5-haiku-20241022", "max_tokens": 20_000},
        "max_tokens: 20000 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022",
        id="max-tokens-over-the-model",
    ),
    pytest.param(
        {
            "messages": turns(
                [{"type": "text", "text": f"p{i}", "cache_control": {"type": "ephemeral"}} for i in range(5)]
            )
        },
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        id="five-cache-breakpoints",
    ),
    pytest.param(
        {"messages": turns([{"type": "image", "source": {**PNG, "media_type": "image/bmp"}}])},
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
        "'image/gif' or 'image/webp'",
        id="image-media-type",
    ),
    pytest.param(
        {"messages": turns([{"type": "image"}])},
        "messages.0.content.0.image.source: Field required",
        id="image-no-source",
    ),
    pytest.param(
        {
            "messages": turns(
                [{"type": "document", "source": {"type": "base64", "media_type": "text/plain", "data": "eA=="}}]
            )
        },
        "document.source.base64.media_type: Input should be 'application/pdf'",
        id="document-media-type",
    ),
    pytest.param(
        {
            "messages": turns(
                "go", [{"type": "thinking", "thinking": "hm", "signature": "s"}, {"type": "text", "text": "x"}]
            )
        },
        "When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`",
        id="thinking-in-final-assistant-without-thinking",
    ),
    pytest.param(
        {"messages": turns("go", [{"type": "thinking", "thinking": "hm"}, CALL], [RESULT]), "tools": [TOOL]},
        "messages.1.content.0.thinking.signature: Field required",
        id="thinking-without-signature",
    ),
    pytest.param(
        {
            "messages": turns("go", [CALL], [RESULT]),
            "tools": [TOOL],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "max_tokens": 2000,
        },
        "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
        id="thinking-on-turn-without-thinking",
    ),
    pytest.param(
        {"thinking": {"type": "enabled", "budget_tokens": 512}},
        "budget_tokens: Input should be greater than or equal to 1024",
        id="thinking-budget-too-small",
    ),
    pytest.param({"messages": turns("x" * 900_000)}, "prompt is too long: ", id="over-the-window"),
]


@pytest.mark.parametrize(("change", "words"), REFUSED)
async def test_what_the_api_refuses_the_stub_refuses_in_its_words(
    messages_api: MessagesApiStub, change: dict[str, Any], words: str
) -> None:
    """Each rule through the real SDK: HTTP 400, the API's error body, its words; nothing scripted is used."""
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 1000, "messages": HELLO, **change}
    body = {k: v for k, v in body.items() if v is not None}
    messages_api.push(reply("never sent"))
    async with client(messages_api) as api:
        with pytest.raises(anthropic.BadRequestError) as refused:  # posted as is: the SDK checks max_tokens itself
            await api.post("/v1/messages", cast_to=anthropic.types.Message, body=body)
    assert refused.value.status_code == 400
    error = refused.value.body
    assert isinstance(error, dict) and error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert words in error["error"]["message"]
    assert messages_api.pending == 1 and len(messages_api.refused) == 1


ACCEPTED = [
    pytest.param(
        {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]},
        id="two-user-turns-combined",
    ),
    pytest.param(
        {"messages": [*turns("go", [CALL], [RESULT]), {"role": "user", "content": "more"}], "tools": [TOOL]},
        id="results-then-another-user-turn",
    ),
    pytest.param({"messages": [*HELLO, {"role": "system", "content": "be brief"}]}, id="system-message"),
    pytest.param(
        {"messages": turns("go", [CALL], [RESULT, {"type": "text", "text": "and?"}]), "tools": [TOOL]}, id="tool-round"
    ),
    pytest.param({"messages": turns("go", [CALL]), "tools": [TOOL]}, id="final-assistant-call"),
    pytest.param(
        {
            "messages": turns(
                [{"type": "text", "text": f"p{i}", "cache_control": {"type": "ephemeral"}} for i in range(4)]
            )
        },
        id="four-cache-breakpoints",
    ),
    pytest.param(
        {"messages": turns([{"type": "image", "source": PNG}, {"type": "text", "text": "what is it?"}])}, id="image"
    ),
    pytest.param(
        {
            "messages": turns("go", [{"type": "thinking", "thinking": "hm", "signature": "s"}, CALL], [RESULT]),
            "tools": [TOOL],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "max_tokens": 2000,
        },
        id="thinking-tool-round",
    ),
    pytest.param({"model": "claude-3-5-haiku-20241022", "max_tokens": 8192}, id="max-tokens-at-the-model-limit"),
]


@pytest.mark.parametrize("change", ACCEPTED)
async def test_what_the_api_accepts_the_stub_answers(messages_api: MessagesApiStub, change: dict[str, Any]) -> None:
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 1000, "messages": HELLO, **change}
    messages_api.push(reply("fine"))
    async with client(messages_api) as api:
        message = await api.messages.create(**body)
    assert message.content[0].type == "text" and message.content[0].text == "fine"
    assert messages_api.refused == []
