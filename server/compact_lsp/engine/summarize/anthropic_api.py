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

from compact_lsp.engine.conversation.messages import Message
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
from compact_lsp.engine.summarize.model_limits import capped_output
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.engine.summarize.summary_request import summary_request_messages

if TYPE_CHECKING:
    from compact_lsp.engine.settings import EngineSettings
    from compact_lsp.engine.summarize.base import Summarizer

log = logging.getLogger(__name__)

MIN_OUTPUT_TOKENS = 1_024
"""The output budget never drops below this, however full the window: less is not worth a summary."""

ROUND_DROP_FRACTION = 0.2
"""When the API does not say by how much the prompt is too long, drop this share of the oldest rounds."""

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

    def _count(self, messages: Sequence[Message], system: str) -> int:
        counter = self._counter
        if counter is None:
            counter = self._counter = TiktokenCounter()
        return counter.count_text(system) + sum(counter.count_message(m) for m in messages)

    def _message_tokens(self, message: Message) -> int:
        return self._count([message], "")

    def output_budget(self, request: SummaryRequest, input_tokens: int) -> int:
        """min(requested output, what the window leaves after the input), at least ``MIN_OUTPUT_TOKENS``, and
        never more than the model takes."""
        room = request.context_window - input_tokens
        return capped_output(self.model, max(MIN_OUTPUT_TOKENS, min(request.max_output_tokens, room)))

    async def summarize(self, request: SummaryRequest) -> Summary:
        return await self.complete(request, compaction_prompt(request.instructions), summary_from_output)

    async def complete(self, request: SummaryRequest, prompt: str, extract: Callable[[str], str]) -> Summary:
        """Send the history with ``prompt`` as the last user turn; ``extract`` turns the answer into the text.

        Shared by the compaction summary and the session notes (which ask for ``<notes>``).
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
