"""The summariser contract: what a compaction asks for, what it gets back, and how it fails."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from compact_lsp.engine.conversation.messages import Message

log = logging.getLogger(__name__)

SummaryErrorKind = Literal[
    "auth",
    "rate_limit",
    "overloaded",
    "timeout",
    "connection",
    "prompt_too_long",
    "bad_summary",
    "api",
    "cancelled",
]

T = TypeVar("T")


@dataclass(frozen=True)
class SummaryRequest:
    """One summarisation: the history to replace and the room the result must fit in."""

    messages: Sequence[Message]
    """The history to summarise (normalised message dicts)."""
    system: str = ""
    """The agent's system prompt, for summarisers that want it (the model summariser uses its own)."""
    instructions: str | None = None
    """What the user asked the summary to focus on (``/compact focus on X``)."""
    context_window: int = 200_000
    max_output_tokens: int = 20_000
    cancel: asyncio.Event | None = None
    """Set it to abandon the summary; the summariser then raises ``SummaryError("cancelled")``."""


@dataclass(frozen=True)
class Summary:
    """A finished summary, analysis scratchpad already stripped."""

    text: str
    summarizer: str
    fallback: bool = False
    fallback_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    dropped_rounds: int = 0
    """Oldest API rounds left out because the prompt was too long for the model."""
    model: str | None = None


class SummaryError(Exception):
    """A summary that could not be made; ``kind`` says why, the message says what to do about it."""

    def __init__(
        self,
        kind: SummaryErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: SummaryErrorKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        """Seconds the API asked us to wait (rate limits), when it said."""

    def __str__(self) -> str:
        return self.message


class Summarizer(Protocol):
    """Turns a conversation into a summary that can replace it."""

    name: str

    async def summarize(self, request: SummaryRequest) -> Summary: ...


class FallbackSummarizer:
    """Try ``primary``; when it fails, use ``fallback`` and mark the summary as a fallback with the reason.

    Cancellation is not a failure to paper over: a cancelled summary stays cancelled.
    """

    def __init__(self, primary: Summarizer, fallback: Summarizer) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name

    async def summarize(self, request: SummaryRequest) -> Summary:
        try:
            return await self.primary.summarize(request)
        except SummaryError as exc:
            if exc.kind == "cancelled":
                raise
            log.warning("%s summary failed (%s), using %s: %s", self.primary.name, exc.kind, self.fallback.name, exc)
            reason = f"{exc.kind}: {exc.message}"
        summary = await self.fallback.summarize(request)
        return replace(summary, fallback=True, fallback_reason=reason)


async def run_cancellable(work: Awaitable[T], cancel: asyncio.Event | None) -> T:
    """Await ``work`` unless ``cancel`` is set first; then stop it and raise ``SummaryError("cancelled")``."""
    if cancel is None:
        return await work
    if cancel.is_set():
        if asyncio.iscoroutine(work):
            work.close()
        raise SummaryError("cancelled", "The summary was cancelled before it started.")
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task.done():
        return task.result()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    except Exception as exc:  # the work failed while being cancelled; cancellation is the answer
        log.debug("summary work failed while cancelled: %r", exc)
    raise SummaryError("cancelled", "The summary was cancelled.")


_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|\Z)", re.DOTALL)
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|\Z)", re.DOTALL)


def summary_from_output(raw: str) -> str:
    """The summary to store from a model's answer: the ``<summary>`` body, analysis scratchpad removed.

    Raise ``SummaryError("bad_summary")`` when nothing but analysis (or nothing at all) came back.
    """
    without_analysis = _ANALYSIS.sub("", raw)
    match = _SUMMARY.search(without_analysis)
    text = (match.group(1) if match else without_analysis).strip()
    if not text:
        what = "only an analysis, no summary" if "<analysis>" in raw else "an empty answer"
        raise SummaryError("bad_summary", f"The model returned {what}; the conversation was left unchanged.")
    return text


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` (an API key) masked."""
    if not secret:
        return text
    return text.replace(secret, "[redacted]")
