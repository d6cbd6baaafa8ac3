"""Full compaction's pure parts: what is summarised, what stays, and the compacted view that replaces history.

The compacted view is one user message — the summary, then the rehydrated attachments in order (plan, files,
skills, memory) — followed, when the history ended on a tool call still awaiting its result, by that assistant
message, so the pending call keeps its match. Nothing here talks to a model or touches the disk.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .messages import Attachment, Message, blocks_of, new_id, tool_results, tool_uses
from .prompts import summary_message_text
from .summarize.base import Summarizer, Summary, SummaryError, SummaryRequest

if TYPE_CHECKING:
    from .context import ContextSession


class CompactionError(RuntimeError):
    """A compaction that did not happen; the conversation is exactly as it was. ``kind`` says why."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class CompactionSplit:
    """The history to summarise and the trailing in-flight tool call that must survive as it is."""

    history: list[Message]
    pending: Message | None


def split_for_compaction(messages: Sequence[Message]) -> CompactionSplit:
    """Hold back a trailing assistant message whose tool calls have no results yet."""
    if messages and messages[-1].get("role") == "assistant" and any(True for _ in tool_uses(messages[-1])):
        return CompactionSplit(list(messages[:-1]), messages[-1])
    return CompactionSplit(list(messages), None)


@dataclass(frozen=True)
class Boundary:
    """The marker left where history was replaced; persisted with the compaction record."""

    id: str
    trigger: str
    tokens_before: int
    tokens_after: int
    summarizer: str
    fallback: bool
    created_at: float
    messages_summarized: int
    extra: dict[str, Any] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {
            "boundaryId": self.id,
            "trigger": self.trigger,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "summarizer": self.summarizer,
            "fallback": self.fallback,
            "createdAt": self.created_at,
            "messagesSummarized": self.messages_summarized,
            **self.extra,
        }


def new_boundary_id() -> str:
    return new_id("cmp")


def build_compacted_view(summary: str, attachments: Sequence[Attachment], pending: Message | None) -> list[Message]:
    """Summary first, then each attachment as its own text block, then the pending tool call if any."""
    content: list[dict[str, Any]] = [{"type": "text", "text": summary_message_text(summary)}]
    content.extend({"type": "text", "text": a.text} for a in attachments if a.text)
    view: list[Message] = [{"role": "user", "content": content}]
    if pending is not None:
        view.append(pending)
    return view


def answered_ids(messages: Sequence[Message]) -> set[str]:
    return {str(b.get("tool_use_id")) for m in messages if m.get("role") == "user" for b in tool_results(m)}


def text_in_messages(messages: Sequence[Message]) -> str:
    """All text the model can see in ``messages`` (to skip rehydrating bytes it already has verbatim)."""
    parts: list[str] = []
    for message in messages:
        for block in blocks_of(message):
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                content = block.get("content", "")
                if isinstance(content, str):
                    parts.append(content)
                else:
                    parts.extend(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "\n".join(parts)


def run_pre_compact_hook(command: str, cwd: str | None, timeout: float = 30.0) -> str:
    """Run the configured pre-compaction command; its stdout adds instructions. Failures say what happened."""
    try:
        done = subprocess.run(
            command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise CompactionError("hook", f"the pre-compaction hook did not finish within {timeout:.0f} s") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise CompactionError("hook", f"the pre-compaction hook exited with {done.returncode}: {tail[0][:200]}")
    return done.stdout.strip()


ProgressFn = Callable[[str, int], None]
"""Reports compaction progress: a short message and a percentage."""


@dataclass(frozen=True)
class CompactionOutcome:
    boundary: Boundary
    view: list[Message]
    rehydrated: list[dict[str, Any]]
    summary: Summary
    attached: list[dict[str, Any]] = field(default_factory=list)
    """Where each attachment sits in the summary message (block index), with its kind, path and partial flag."""

    def to_wire(self) -> dict[str, Any]:
        """The ``compact.compact`` command's result (docs/protocol.md)."""
        return {
            "tokensBefore": self.boundary.tokens_before,
            "tokensAfter": self.boundary.tokens_after,
            "summarizer": self.boundary.summarizer,
            "fallback": self.boundary.fallback,
            "rehydrated": self.rehydrated,
            "boundaryId": self.boundary.id,
            "trigger": self.boundary.trigger,
            # why the model did not write the summary ("rate_limit: ..."), so the user sees the API failed
            "fallbackReason": self.summary.fallback_reason if self.boundary.fallback else None,
        }


async def run_compaction(
    session: ContextSession,
    summarizer: Summarizer,
    *,
    instructions: str | None = None,
    trigger: str = "manual",
    progress: ProgressFn | None = None,
    cancel: asyncio.Event | None = None,
    max_output_tokens: int = 20_000,
) -> CompactionOutcome:
    """Summarise, rehydrate and commit; on any failure or cancellation the session is left exactly as it was."""
    report = progress or (lambda _message, _percent: None)
    before_messages = session.messages
    revision = session.revision
    tokens_before = session.usage().total
    split = split_for_compaction(before_messages)
    if not split.history:
        raise CompactionError("empty", "There is nothing to compact yet: the conversation has no history.")
    report("Summarising the conversation", 10)
    request = SummaryRequest(
        messages=split.history,
        system=session.system_prompt(),
        instructions=instructions,
        context_window=session.settings.context_window,
        max_output_tokens=max_output_tokens,
        cancel=cancel,
    )
    try:
        summary = await summarizer.summarize(request)
    except SummaryError as exc:
        raise CompactionError(exc.kind, str(exc)) from exc
    if cancel is not None and cancel.is_set():
        raise CompactionError("cancelled", "The compaction was cancelled; nothing changed.")
    report("Re-attaching files, plan and skills", 70)
    kept = [split.pending] if split.pending is not None else []
    result = await asyncio.to_thread(session.rehydration, kept)
    view = build_compacted_view(summary.text, result.attachments, split.pending)
    tokens_after = sum(session.counter.count_message(m) for m in view) + session.fixed_tokens()
    if tokens_after >= tokens_before:
        raise CompactionError(
            "not_smaller",
            f"The compacted context ({tokens_after} tokens) would not be smaller than the current one "
            f"({tokens_before} tokens); nothing changed.",
        )
    if cancel is not None and cancel.is_set():
        raise CompactionError("cancelled", "The compaction was cancelled; nothing changed.")
    if session.revision != revision:
        raise CompactionError("conflict", "The conversation changed during compaction; nothing changed.")
    boundary = Boundary(
        id=new_boundary_id(),
        trigger=trigger,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        summarizer=summary.summarizer,
        fallback=summary.fallback,
        created_at=session.clock(),
        messages_summarized=len(split.history),
        extra={"fallbackReason": summary.fallback_reason} if summary.fallback else {},
    )
    rehydrated = [
        {"kind": a.kind, "path": a.path, "tokens": session.counter.count_text(a.text)} for a in result.attachments
    ]
    attached = [
        {"block": i, "kind": a.kind, "path": a.path, "partial": bool(a.meta.get("partial"))}
        for i, a in enumerate((a for a in result.attachments if a.text), start=1)
    ]
    outcome = CompactionOutcome(boundary, view, rehydrated, summary, attached)
    report("Committing", 95)
    session.commit_compaction(outcome)
    return outcome
