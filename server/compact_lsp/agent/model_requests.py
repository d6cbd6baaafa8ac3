"""One request to the model: the client, the cache breakpoints, streaming the answer, and what a failure means.

The ``anthropic`` SDK is imported only inside functions (it is slow to import); the client is built by a
``ClientFactory`` so tests can pass a loopback API.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from compact_lsp.agent.settings import AgentSettings
from compact_lsp.engine.conversation.messages import Block, Message
from compact_lsp.engine.settings import EngineSettings

ClientFactory = Callable[[], Any]
"""Returns an ``anthropic.AsyncAnthropic`` (or anything with its async-context and ``messages.stream``)."""

EPHEMERAL = {"type": "ephemeral"}


INTERNAL_FAILURE = (
    "The agent stopped on an unexpected error (details in the compact-lsp log); the conversation is kept as it was"
    " before it. Try again, or start a new chat."
)
REPLY_REFUSED = "The API's answer cannot be added to the conversation ({}); nothing of it was kept. Try again."


class AgentError(Exception):
    """A turn that could not go on (the API failed, no key); ``kind`` as the summariser's error kinds."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def anthropic_client_factory(
    settings: EngineSettings, agent: AgentSettings, env: Mapping[str, str] | None = None
) -> ClientFactory:
    """The production client: the key from ANTHROPIC_API_KEY; base URL from the settings, else
    ANTHROPIC_BASE_URL, else the SDK's default."""
    environ = os.environ if env is None else env

    def make() -> Any:
        key = getattr(settings, "api_key", None) or environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise AgentError("auth", "No Anthropic API key: set ANTHROPIC_API_KEY for the language server.")
        import anthropic

        base_url = settings.base_url or environ.get("ANTHROPIC_BASE_URL") or None
        return anthropic.AsyncAnthropic(
            api_key=key, base_url=base_url, max_retries=agent.max_retries, timeout=agent.timeout
        )

    return make


def with_cache_breakpoint(messages: Sequence[Message]) -> list[Message]:
    """The messages to send: no cache_control of their own, one breakpoint on the last cacheable block."""
    out: list[Message] = []
    for message in messages:
        blocks = message["content"]
        if any("cache_control" in b for b in blocks):
            blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]
        out.append({"role": message["role"], "content": blocks})
    for message in reversed(out):
        blocks = list(message["content"])
        for i in range(len(blocks) - 1, -1, -1):
            block = blocks[i]
            if block.get("type") in ("thinking", "redacted_thinking"):
                continue
            if block.get("type") == "text" and not block.get("text"):
                continue
            blocks[i] = {**block, "cache_control": EPHEMERAL}
            message["content"] = blocks
            return out
    return out


def block_param(block: Any) -> Block:
    """A response content block as a request block (only the fields the API accepts back)."""
    kind = block.type
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "tool_use":
        if not isinstance(block.input, dict):
            raise AgentError(
                "bad_response",
                f"The model called {block.name!r} with an input that is not an object "
                f"({type(block.input).__name__}); nothing of the answer was kept, try again.",
            )
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": dict(block.input)}
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if kind == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    dumped: Block = block.model_dump(mode="json", exclude_none=True)
    return dumped


def answer_blocks(content: Sequence[Any]) -> list[Block]:
    """The answer's blocks as request blocks, without blank text (the model may send ``"\n\n"`` before a call;
    the API refuses it in every later request: "text content blocks must contain non-whitespace text")."""
    blocks = [block_param(b) for b in content]
    return [b for b in blocks if b["type"] != "text" or b["text"].strip()]


def usage_dict(usage: Any) -> dict[str, Any] | None:
    """The response usage as plain ints (what the session journals with the answer)."""
    if usage is None:
        return None
    return {
        k: v
        for k, v in usage.model_dump(mode="json", exclude_none=True).items()
        if isinstance(v, int) and not isinstance(v, bool)
    }


async def stream_message(client: Any, body: dict[str, Any], emit: Callable[[dict[str, Any]], None]) -> Any:
    """Send ``body``, emitting text as it streams; the final message (the SDK's ``Message``).

    An answer the SDK cannot read (an event whose data is not JSON, a 200 that is not an event stream) is an
    ``AgentError`` of kind ``bad_response``; API and transport errors pass through to ``api_failure``."""
    import anthropic

    try:
        async with client.messages.stream(**body) as stream:
            async for event in stream:
                if event.type == "text" and event.text:
                    emit({"kind": "text", "text": event.text})
            return await stream.get_final_message()
    except (anthropic.APIError, AgentError):
        raise
    except (ValueError, TypeError, KeyError, AttributeError, AssertionError, RuntimeError) as exc:
        if api_failure(exc) is not None:
            raise
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise AgentError(
            "bad_response", f"The API's answer was not a readable message stream ({detail}); try again."
        ) from exc


def api_failure(exc: BaseException) -> AgentError | None:
    """The ``AgentError`` for an SDK or transport failure; None for anything else (a bug)."""
    import anthropic

    from compact_lsp.engine.summarize.api_errors import is_transport_error, map_api_error

    if not isinstance(exc, anthropic.APIError) and not is_transport_error(exc, ("TransportError", "StreamError")):
        return None
    error = map_api_error(exc)
    if error.kind == "timeout":
        return AgentError("timeout", "The Anthropic API did not answer in time; try again.")
    return AgentError(error.kind, error.message)
