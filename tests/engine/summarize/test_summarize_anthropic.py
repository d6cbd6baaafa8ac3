"""The model summariser, through the real SDK over HTTP against the loopback Messages API stub."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.strategies import conversations, raw_messages
from tests.support.messages_api_rules import refusal
from tests.support.messages_api_stub import (
    MessagesApiStub,
    StubResponse,
    api_error,
    error_mid_stream,
    hang,
    reply,
    reset_mid_stream,
)

from compact_lsp.engine.prompts import COMPACTION_PROMPT
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.anthropic_api import AnthropicSummarizer, summarizer_from_settings
from compact_lsp.engine.summarize.base import FallbackSummarizer, SummaryError, SummaryRequest
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.engine.summarize.summary_request import TRUNCATION_NOTE, summary_request_messages

KEY = "sk-ant-test-DO-NOT-LEAK-0123456789"
GOOD = "<analysis>Looked at it all.</analysis>\n<summary>\n1. Primary Request and Intent: fix login</summary>"


@pytest.fixture
def messages_api() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as stub:
        yield stub


def conversation(rounds: int = 3) -> list[dict[str, Any]]:
    """A prompt, then ``rounds`` read rounds, then the assistant's closing words."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "Fix the login bug"}]}]
    for i in range(rounds):
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"Reading file {i}"},
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": "Read",
                        "input": {"file_path": f"/p/f{i}.py"},
                    },
                ],
            }
        )
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"contents {i} " * 50}],
            }
        )
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Found it in f2.py"}]})
    return messages


def summarizer(stub: MessagesApiStub, **kwargs: Any) -> AnthropicSummarizer:
    options: dict[str, Any] = {"max_retries": 0, "timeout": 10.0}
    options.update(kwargs)
    return AnthropicSummarizer(model="claude-test", api_key=KEY, base_url=stub.base_url, env={}, **options)


def request(**kwargs: Any) -> SummaryRequest:
    options: dict[str, Any] = {
        "messages": conversation(),
        "context_window": 200_000,
        "max_output_tokens": 8_000,
    }
    options.update(kwargs)
    return SummaryRequest(**options)


async def test_streamed_summary_is_stored_without_the_analysis(messages_api: MessagesApiStub) -> None:
    messages_api.push(reply(GOOD))
    summary = await summarizer(messages_api).summarize(request())
    assert summary.text == "1. Primary Request and Intent: fix login"
    assert "I looked at it all" not in summary.text
    assert summary.summarizer == "anthropic" and not summary.fallback
    assert summary.output_tokens is not None and summary.output_tokens > 0
    sent = messages_api.requests[0]
    assert sent.stream and sent.body["model"] == "claude-test"
    assert KEY in sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")
    roles = [m["role"] for m in sent.body["messages"]]
    assert roles[0] == "user" and all(a != b for a, b in itertools.pairwise(roles))
    assert sent.last_user_text() == COMPACTION_PROMPT


async def test_a_session_with_tool_calls_gets_the_models_summary(messages_api: MessagesApiStub) -> None:
    """The strict stub refuses what the API refuses: the request must be one the real service accepts."""
    messages_api.push(reply(GOOD))
    summary = await summarizer(messages_api).summarize(request())
    assert messages_api.refused == []
    assert summary.text == "1. Primary Request and Intent: fix login"


async def test_user_instructions_are_appended_to_the_prompt(messages_api: MessagesApiStub) -> None:
    messages_api.push(reply(GOOD))
    await summarizer(messages_api).summarize(request(instructions="focus on the database schema"))
    prompt = messages_api.requests[0].last_user_text()
    assert prompt.startswith(COMPACTION_PROMPT)
    assert prompt.endswith("focus on the database schema")


async def test_output_budget_is_clamped_to_what_the_window_leaves(messages_api: MessagesApiStub) -> None:
    messages_api.push(reply(GOOD), reply(GOOD))
    await summarizer(messages_api).summarize(request(context_window=200_000, max_output_tokens=8_000))
    await summarizer(messages_api).summarize(request(context_window=3_000, max_output_tokens=8_000))
    roomy, tight = (r.body["max_tokens"] for r in messages_api.requests)
    assert roomy == 8_000
    assert 1_024 <= tight < 3_000


@pytest.mark.parametrize(
    ("response", "kind"),
    [
        pytest.param(api_error(401, "authentication_error", f"invalid x-api-key {KEY}"), "auth", id="401-auth"),
        pytest.param(api_error(403, "permission_error", "no access"), "auth", id="403-permission"),
        pytest.param(
            api_error(429, "rate_limit_error", "slow down", {"retry-after": "7"}),
            "rate_limit",
            id="429-rate-limit",
        ),
        pytest.param(api_error(529, "overloaded_error", "Overloaded"), "overloaded", id="529-overloaded"),
        pytest.param(api_error(500, "api_error", "boom"), "api", id="500-api"),
        pytest.param(api_error(400, "invalid_request_error", "messages: bad"), "api", id="400-other"),
        pytest.param(reply("I could not do it", stop_reason="max_tokens"), "bad_summary", id="max-tokens"),
        pytest.param(reply("<analysis>only thinking</analysis>"), "bad_summary", id="analysis-only"),
        pytest.param(reply("   "), "bad_summary", id="empty"),
        pytest.param(reset_mid_stream(), "connection", id="reset-mid-stream"),
        pytest.param(error_mid_stream("overloaded_error"), "overloaded", id="overloaded-mid-stream"),
    ],
)
async def test_failures_carry_their_kind_and_never_the_key(
    messages_api: MessagesApiStub, response: StubResponse, kind: str
) -> None:
    messages_api.push(response)
    with pytest.raises(SummaryError) as caught:
        await summarizer(messages_api).summarize(request())
    assert caught.value.kind == kind
    assert KEY not in str(caught.value) and KEY not in repr(caught.value.args)
    assert len(messages_api.requests) == 1  # max_retries=0: no retry hid the failure


async def test_rate_limit_carries_the_retry_after_the_api_asked_for(messages_api: MessagesApiStub) -> None:
    messages_api.push(api_error(429, "rate_limit_error", headers={"retry-after": "7"}))
    with pytest.raises(SummaryError) as caught:
        await summarizer(messages_api).summarize(request())
    assert caught.value.retry_after == 7.0
    assert "7 s" in str(caught.value)


async def test_sdk_retries_after_a_rate_limit_when_allowed(messages_api: MessagesApiStub) -> None:
    messages_api.push(api_error(429, "rate_limit_error", headers={"retry-after-ms": "10"}), reply(GOOD))
    summary = await summarizer(messages_api, max_retries=1).summarize(request())
    assert summary.text.startswith("1. Primary Request")
    assert len(messages_api.requests) == 2


async def test_an_unanswered_request_times_out(messages_api: MessagesApiStub) -> None:
    messages_api.push(hang())
    with pytest.raises(SummaryError) as caught:
        await summarizer(messages_api, timeout=0.3).summarize(request())
    assert caught.value.kind == "timeout"


async def test_unreachable_api_is_a_connection_error() -> None:
    with MessagesApiStub() as stub:
        base_url = stub.base_url
    with pytest.raises(SummaryError) as caught:
        await AnthropicSummarizer(model="m", api_key=KEY, base_url=base_url, max_retries=0, env={}).summarize(request())
    assert caught.value.kind == "connection"
    assert KEY not in str(caught.value)


async def test_cancel_abandons_the_request(messages_api: MessagesApiStub) -> None:
    messages_api.push(hang())
    cancel = asyncio.Event()
    task = asyncio.create_task(summarizer(messages_api).summarize(request(cancel=cancel)))
    assert await asyncio.to_thread(messages_api.wait_for_requests, 1)  # the request is in flight
    cancel.set()
    with pytest.raises(SummaryError) as caught:
        await task
    assert caught.value.kind == "cancelled"


async def test_prompt_too_long_drops_the_oldest_rounds_and_retries(messages_api: MessagesApiStub) -> None:
    messages_api.push(
        api_error(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
        reply(GOOD),
    )
    summary = await summarizer(messages_api).summarize(request(messages=conversation(rounds=8)))
    first, second = (r.body["messages"] for r in messages_api.requests)
    assert summary.dropped_rounds >= 1
    assert len(json.dumps(second)) < len(json.dumps(first))
    assert TRUNCATION_NOTE in str(second[0]["content"])
    assert "contents 0" not in str(second)  # the oldest round went first
    assert "contents 7" in str(second)


async def test_prompt_too_long_gives_up_after_the_bounded_retries(messages_api: MessagesApiStub) -> None:
    too_long = api_error(400, "invalid_request_error", "prompt is too long: 300000 tokens > 200000 maximum")
    messages_api.push(too_long, too_long, too_long)
    with pytest.raises(SummaryError) as caught:
        await summarizer(messages_api, max_prompt_retries=2).summarize(request(messages=conversation(rounds=20)))
    assert caught.value.kind == "prompt_too_long"
    assert len(messages_api.requests) == 3


async def test_no_key_is_an_auth_error_and_no_request_is_sent(messages_api: MessagesApiStub) -> None:
    bare = AnthropicSummarizer(model="m", base_url=messages_api.base_url, env={})
    with pytest.raises(SummaryError) as caught:
        await bare.summarize(request())
    assert caught.value.kind == "auth" and "ANTHROPIC_API_KEY" in str(caught.value)
    assert messages_api.requests == []


async def test_fallback_marks_the_offline_summary_with_the_reason(messages_api: MessagesApiStub) -> None:
    messages_api.push(api_error(529, "overloaded_error", "Overloaded"))
    chain = FallbackSummarizer(summarizer(messages_api), OfflineSummarizer())
    summary = await chain.summarize(request())
    assert summary.fallback and summary.summarizer == "offline"
    assert summary.fallback_reason is not None and summary.fallback_reason.startswith("overloaded")
    assert "Fix the login bug" in summary.text


async def test_fallback_does_not_hide_a_cancellation(messages_api: MessagesApiStub) -> None:
    cancel = asyncio.Event()
    cancel.set()
    chain = FallbackSummarizer(summarizer(messages_api), OfflineSummarizer())
    with pytest.raises(SummaryError) as caught:
        await chain.summarize(request(cancel=cancel))
    assert caught.value.kind == "cancelled"
    assert messages_api.requests == []


@pytest.mark.parametrize(
    ("env", "settings", "expected"),
    [
        pytest.param({}, EngineSettings(), "offline", id="no-key-offline"),
        pytest.param({"ANTHROPIC_API_KEY": KEY}, EngineSettings(), "anthropic+offline", id="env-key"),
    ],
)
def test_factory_picks_the_model_only_with_a_key(env: dict[str, str], settings: EngineSettings, expected: str) -> None:
    chosen = summarizer_from_settings(settings, env)
    if expected == "offline":
        assert isinstance(chosen, OfflineSummarizer)
    else:
        assert isinstance(chosen, FallbackSummarizer)
        assert isinstance(chosen.primary, AnthropicSummarizer) and isinstance(chosen.fallback, OfflineSummarizer)
        assert KEY not in repr(chosen.primary)


def test_factory_uses_the_compaction_model_when_set() -> None:
    settings = EngineSettings(model="big", compaction_model="small")
    chosen = summarizer_from_settings(settings, {"ANTHROPIC_API_KEY": KEY})
    assert isinstance(chosen, FallbackSummarizer) and isinstance(chosen.primary, AnthropicSummarizer)
    assert chosen.primary.model == "small"


@pytest.mark.parametrize(
    ("history", "expected_roles"),
    [
        pytest.param(
            [{"role": "assistant", "content": [{"type": "text", "text": "hello"}]}],
            ["user", "assistant", "user"],
            id="starts-with-assistant",
        ),
        pytest.param(
            [
                {"role": "user", "content": [{"type": "text", "text": "a"}]},
                {"role": "user", "content": [{"type": "text", "text": "b"}]},
            ],
            ["user"],
            id="two-user-turns-merge-with-prompt",
        ),
        pytest.param(
            [
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
                },
            ],
            ["user", "assistant", "user"],
            id="pending-tool-call-as-text",
        ),
        pytest.param(
            [
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "gone", "content": "x"}]},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            ],
            ["user", "assistant", "user"],
            id="orphan-result-as-text-and-thinking-dropped",
        ),
    ],
)
def test_request_messages_are_valid_for_the_api(history: list[dict[str, Any]], expected_roles: list[str]) -> None:
    messages = summary_request_messages(history, "PROMPT")
    assert [m["role"] for m in messages] == expected_roles
    assert messages[-1]["content"][-1] == {"type": "text", "text": "PROMPT"}
    assert {b["type"] for m in messages for b in m["content"]} == {"text"}
    assert refusal({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}) is None


def test_tool_calls_and_results_are_read_as_text() -> None:
    """What the summariser reads of a tool round: the call with its input, the result with its text."""
    messages = summary_request_messages(conversation(1), "PROMPT")
    text = "\n".join(b["text"] for m in messages for b in m["content"])
    assert '[Tool call #1 Read] {"file_path":"/p/f0.py"}' in text
    assert "[Tool result #1 Read]\ncontents 0 contents 0" in text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=st.one_of(conversations(), raw_messages()))
def test_any_history_makes_a_request_the_api_accepts(history: list[dict[str, Any]]) -> None:
    """Valid sessions and arbitrary wreckage alike (orphan results, unanswered calls, empty text, thinking,
    images, roles out of turn): the request passes every rule the strict stub applies."""
    for truncated in (False, True):
        messages = summary_request_messages(history, "PROMPT", truncated=truncated)
        body = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "S", "messages": messages}
        assert refusal(body) is None
