"""The model summariser: the Anthropic Messages API, streamed, through ``anthropic.AsyncAnthropic``.

The SDK is imported inside functions: it takes a noticeable time to import and most sessions never need it.
The API key never appears in an error message or a log record (``redact`` runs over every message we build).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, text_message
from compact_lsp.engine.conversation.rounds import group_rounds
from compact_lsp.engine.conversation.tokens import TiktokenCounter, TokenCounter
from compact_lsp.engine.prompts import COMPACTION_SYSTEM_PROMPT, compaction_prompt
from compact_lsp.engine.summarize.api_errors import map_api_error
from compact_lsp.engine.summarize.base import (
    FallbackSummarizer,
    Summary,
    SummaryError,
    SummaryRequest,
    redact,
    run_cancellable,
    summary_from_output,
)
from compact_lsp.engine.summarize.offline import OfflineSummarizer

if TYPE_CHECKING:
    from compact_lsp.engine.settings import EngineSettings
    from compact_lsp.engine.summarize.base import Summarizer

log = logging.getLogger(__name__)

MIN_OUTPUT_TOKENS = 1_024
"""The output budget never drops below this, however full the window: less is not worth a summary."""

ROUND_DROP_FRACTION = 0.2
"""When the API does not say by how much the prompt is too long, drop this share of the oldest rounds."""

TRUNCATION_NOTE = "[Earlier parts of this conversation were left out of this summary request to fit the window.]"

CONVERSATION_START = "(The conversation begins.)"
"""Put before a history that starts with an assistant turn: the API wants a user turn first."""

_TOO_LONG = re.compile(r"prompt is too long:?\s*(\d+)\s*tokens?\s*>\s*(\d+)", re.IGNORECASE)


class AnthropicSummarizer:
    """Summarise with a model over the Messages API (streaming); see ``docs/engine.md`` for the prompt."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 600.0,
        max_prompt_retries: int = 3,
        counter: TokenCounter | None = None,
        env: Mapping[str, str] | None = None,
        system_prompt: str = COMPACTION_SYSTEM_PROMPT,
    ) -> None:
        environ = os.environ if env is None else env
        self.model = model
        self._api_key = api_key or environ.get("ANTHROPIC_API_KEY") or None
        self.base_url = base_url or environ.get("ANTHROPIC_BASE_URL") or None
        if max_retries < 0 or max_prompt_retries < 0:
            raise ValueError("max_retries and max_prompt_retries must be >= 0")
        if timeout <= 0:
            raise ValueError("timeout must be > 0 seconds")
        self.max_retries = max_retries
        self.timeout = timeout
        self.max_prompt_retries = max_prompt_retries
        self.system_prompt = system_prompt
        self._counter = counter

    def __repr__(self) -> str:  # never show the key
        return f"AnthropicSummarizer(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def has_key(self) -> bool:
        return self._api_key is not None

    def _count(self, messages: Sequence[Message], system: str) -> int:
        counter = self._counter
        if counter is None:
            counter = self._counter = TiktokenCounter()
        return counter.count_text(system) + sum(counter.count_message(m) for m in messages)

    def _message_tokens(self, message: Message) -> int:
        return self._count([message], "")

    def output_budget(self, request: SummaryRequest, input_tokens: int) -> int:
        """min(requested output, what the window leaves after the input), at least ``MIN_OUTPUT_TOKENS``."""
        room = request.context_window - input_tokens
        return max(MIN_OUTPUT_TOKENS, min(request.max_output_tokens, room))

    async def summarize(self, request: SummaryRequest) -> Summary:
        return await self.complete(request, compaction_prompt(request.instructions), summary_from_output)

    async def complete(self, request: SummaryRequest, prompt: str, extract: Callable[[str], str]) -> Summary:
        """Send the history with ``prompt`` as the last user turn; ``extract`` turns the answer into the text.

        Shared by the compaction summary and the session-memory notes (which ask for ``<notes>``).
        """
        return await run_cancellable(self._complete(request, prompt, extract), request.cancel)

    async def _complete(self, request: SummaryRequest, prompt: str, extract: Callable[[str], str]) -> Summary:
        if self._api_key is None:
            raise SummaryError(
                "auth",
                "No Anthropic API key: set ANTHROPIC_API_KEY or compactLsp.apiKey to summarise with a model.",
            )
        import anthropic

        history = list(request.messages)
        dropped = 0
        async with anthropic.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, max_retries=self.max_retries, timeout=self.timeout
        ) as client:
            for attempt in range(self.max_prompt_retries + 1):
                messages = summary_request_messages(history, prompt, truncated=dropped > 0)
                input_tokens = self._count(messages, self.system_prompt)
                max_tokens = self.output_budget(request, input_tokens)
                log.info(
                    "summary request: %d messages, ~%d input tokens, max_tokens %d, attempt %d",
                    len(messages),
                    input_tokens,
                    max_tokens,
                    attempt + 1,
                )
                try:
                    return await self._stream(client, messages, max_tokens, dropped, extract)
                except anthropic.BadRequestError as exc:
                    if "prompt is too long" not in str(exc).lower():
                        raise self._error(exc) from None
                    if attempt >= self.max_prompt_retries:
                        raise SummaryError(
                            "prompt_too_long",
                            f"The conversation is too long to summarise even after leaving out the {dropped} "
                            "oldest rounds; try the offline summariser or a model with a larger window.",
                            status=400,
                        ) from None
                    history, n = drop_oldest_rounds(history, _excess_ratio(str(exc)), self._message_tokens)
                    if n == 0:
                        raise SummaryError(
                            "prompt_too_long",
                            "The conversation is too long to summarise and has no older rounds left to leave "
                            "out; try the offline summariser or a model with a larger window.",
                            status=400,
                        ) from None
                    dropped += n
                    log.warning("prompt too long: left out the %d oldest rounds (%d in all)", n, dropped)
                except Exception as exc:
                    raise self._error(exc) from None
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def _stream(
        self,
        client: Any,
        messages: list[Message],
        max_tokens: int,
        dropped: int,
        extract: Callable[[str], str],
    ) -> Summary:
        async with client.messages.stream(
            model=self.model, max_tokens=max_tokens, system=self.system_prompt, messages=messages
        ) as stream:
            final = await stream.get_final_message()
        raw = "".join(getattr(block, "text", "") for block in final.content if block.type == "text")
        if final.stop_reason == "max_tokens":
            raise SummaryError(
                "bad_summary",
                f"The summary was cut off at the output limit ({max_tokens} tokens); the conversation was "
                "left unchanged. Try /compact again with narrower instructions, or a larger output budget.",
            )
        usage = final.usage
        return Summary(
            text=extract(raw),
            summarizer=self.name,
            input_tokens=usage.input_tokens if usage else None,
            output_tokens=usage.output_tokens if usage else None,
            dropped_rounds=dropped,
            model=self.model,
        )

    def _error(self, exc: BaseException) -> SummaryError:
        error = map_api_error(exc)
        error.message = redact(error.message, self._api_key)
        error.args = (error.message,)
        return error


def _excess_ratio(error_text: str) -> float | None:
    """How much too long the prompt was (``210000 tokens > 200000`` gives 0.05), if the error says."""
    match = _TOO_LONG.search(error_text)
    if not match:
        return None
    actual, limit = int(match.group(1)), int(match.group(2))
    if actual <= limit or actual <= 0:
        return None
    return (actual - limit) / actual


def drop_oldest_rounds(
    messages: Sequence[Message], excess_ratio: float | None, size: Callable[[Message], int]
) -> tuple[list[Message], int]:
    """Leave out the oldest API rounds: enough of ``size`` to cover ``excess_ratio`` (with a margin), else a
    fifth of the rounds; the newest round always stays. Returns the kept messages and the rounds left out."""
    rounds = group_rounds(list(messages))
    if len(rounds) <= 1:
        return list(messages), 0
    if excess_ratio is None:
        n = max(1, int(len(rounds) * ROUND_DROP_FRACTION))
    else:
        sizes = [sum(size(m) for m in messages[r.start : r.end]) for r in rounds]
        target = sum(sizes) * min(1.0, excess_ratio * 1.1)
        n, dropped = 0, 0
        while n < len(rounds) - 1 and dropped < target:
            dropped += sizes[n]
            n += 1
        n = max(1, n)
    n = min(n, len(rounds) - 1)
    return list(messages[rounds[n].start :]), n


def summary_request_messages(history: Sequence[Message], prompt: str, *, truncated: bool = False) -> list[Message]:
    """The messages of a summary request: the history made valid for the API, then the prompt as a user turn.

    Thinking blocks are left out (they cost tokens and carry signatures), images and documents become
    placeholders, empty text is removed, a tool call without its result gets a placeholder result, a result
    without its call is dropped, and same-role neighbours are merged so roles alternate from a user turn.
    """
    cleaned: list[Message] = []
    for message in history:
        role = message.get("role")
        blocks = [b for b in (_clean_block(b) for b in blocks_of(message)) if b is not None]
        if blocks and role in ("user", "assistant"):
            cleaned.append({"role": role, "content": blocks})
    merged = _merge_roles(cleaned)
    _pair_tool_calls(merged)
    merged = [m for m in merged if m["content"]]
    if truncated:
        merged.insert(0, text_message("user", TRUNCATION_NOTE))
    if merged and merged[0]["role"] != "user":
        merged.insert(0, text_message("user", CONVERSATION_START))
    out = _merge_roles(merged)
    prompt_block: Block = {"type": "text", "text": prompt}
    if out and out[-1]["role"] == "user":
        out[-1]["content"].append(prompt_block)
    else:
        out.append({"role": "user", "content": [prompt_block]})
    return out


def _merge_roles(messages: Sequence[Message]) -> list[Message]:
    """Neighbours with the same role become one message (the API wants roles to alternate)."""
    out: list[Message] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"]:
            out[-1]["content"].extend(message["content"])
        else:
            out.append({"role": message["role"], "content": list(message["content"])})
    return out


def _clean_block(block: Block) -> Block | None:
    kind = block.get("type")
    if kind in ("thinking", "redacted_thinking"):
        return None
    if kind == "text":
        return _without_cache_control(block) if str(block.get("text", "")).strip() else None
    if kind == "image":
        return {"type": "text", "text": "[image]"}
    if kind == "document":
        return {"type": "text", "text": "[document]"}
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            inner = [c for c in (_clean_block(c) for c in content if isinstance(c, dict)) if c is not None]
            content = inner
        cleaned = {k: v for k, v in block.items() if k not in ("content", "cache_control")}
        cleaned["content"] = content
        return cleaned
    return _without_cache_control(block)


def _without_cache_control(block: Block) -> Block:
    """The block without its cache breakpoint: the API allows only a few per request."""
    return {k: v for k, v in block.items() if k != "cache_control"}


def _pair_tool_calls(messages: list[Message]) -> None:
    """Give every tool_use a tool_result in the next user turn, and drop results whose call is gone."""
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            ids = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
            if not ids:
                continue
            if i + 1 >= len(messages) or messages[i + 1]["role"] != "user":
                messages.insert(i + 1, {"role": "user", "content": []})
            following = messages[i + 1]["content"]
            answered = {b.get("tool_use_id") for b in following if b.get("type") == "tool_result"}
            missing = [
                {"type": "tool_result", "tool_use_id": tid, "content": "[no result was recorded]"}
                for tid in ids
                if tid not in answered
            ]
            following[:0] = missing
        else:
            previous = messages[i - 1] if i > 0 and messages[i - 1]["role"] == "assistant" else None
            calls = {b["id"] for b in previous["content"] if b.get("type") == "tool_use"} if previous else set()
            kept = [b for b in message["content"] if b.get("type") != "tool_result" or b.get("tool_use_id") in calls]
            # Results go first in a user turn, as the API requires.
            results = [b for b in kept if b.get("type") == "tool_result"]
            others = [b for b in kept if b.get("type") != "tool_result"]
            message["content"] = results + others


def summarizer_from_settings(settings: EngineSettings, env: Mapping[str, str] | None = None) -> Summarizer:
    """The model summariser (offline as its fallback) when a key is set, else the offline summariser."""
    environ = os.environ if env is None else env
    api_key: str | None = getattr(settings, "api_key", None) or environ.get("ANTHROPIC_API_KEY") or None
    offline = OfflineSummarizer()
    if not api_key:
        return offline
    model = settings.compaction_model or settings.model
    primary = AnthropicSummarizer(model=model, api_key=api_key, base_url=settings.base_url, env=environ)
    return FallbackSummarizer(primary, offline)
