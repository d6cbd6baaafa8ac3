"""Full compaction as a pure step: from a snapshot of the conversation to an outcome, committing nothing.

``run_compaction`` takes a ``CompactionSnapshot`` (the history, its size, the session's revision), the summariser
and two callables, ``rehydrate`` and ``count``, and returns a ``CompactionOutcome``: the compacted view that would
replace the history, with its boundary. It changes nothing; ``ContextSession.compact`` checks that the session did
not move on meanwhile (the revision) and commits (OpenHands' ``condense(view)``, with the session as the owner).

The compacted view is one user message — the summary, then the rehydrated attachments in order (plan, files,
skills, memory) — followed, when the history ended on a tool call still awaiting its result, by that assistant
message, so the pending call keeps its match; a trailing user turn not yet answered is kept word for word after the
attachments, in the same user message. The step itself keeps no state and opens no file, but what it is
given does real work: the summariser may call a model, and ``rehydrate`` re-reads files from disk (it runs in a
worker thread). ``run_pre_compact_hook`` runs the user's command before a compaction (a subprocess).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.conversation.messages import Attachment, Message, join_messages, new_id, tool_results, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.prompts import summary_message_text
from compact_lsp.engine.summarize.base import Summarizer, Summary, SummaryError, SummaryRequest

if TYPE_CHECKING:
    from compact_lsp.engine.compaction.rehydration import RehydrationResult


class CompactionError(RuntimeError):
    """A compaction that did not happen; the conversation is exactly as it was. ``kind`` says why; ``notify``: the
    user should be told (once) even though nobody asked for this compaction."""

    def __init__(self, kind: str, message: str, *, notify: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.notify = notify


@dataclass(frozen=True)
class CompactionSplit:
    """The history to summarise and the trailing message that must survive as it is: a tool call still awaiting
    its result (it keeps its match), or a user turn the model has not answered yet (it stays the user's words,
    last, so the model answers it rather than a summary of it)."""

    history: list[Message]
    pending: Message | None


def split_for_compaction(messages: Sequence[Message]) -> CompactionSplit:
    """Hold back a trailing in-flight tool call, or a trailing user turn that answers no tool call."""
    if len(messages) < 2:
        return CompactionSplit(list(messages), None)
    last = messages[-1]
    in_flight = last.get("role") == "assistant" and any(True for _ in tool_uses(last))
    unanswered = last.get("role") == "user" and not any(True for _ in tool_results(last))
    if in_flight or unanswered:
        return CompactionSplit(list(messages[:-1]), last)
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


def new_boundary_id() -> str:
    return new_id("cmp")


def build_compacted_view(summary: str, attachments: Sequence[Attachment], pending: Message | None) -> list[Message]:
    """Summary first, then each attachment as its own text block, then the held-back message if any (a user
    turn joins the summary message: roles alternate)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": summary_message_text(summary)}]
    content.extend({"type": "text", "text": a.text} for a in attachments if a.text)
    view: list[Message] = [{"role": "user", "content": content}]
    return join_messages(view, [pending]) if pending is not None else view


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


@dataclass(frozen=True)
class CompactionSnapshot:
    """What a compaction works from, taken from the session in one go (under the server's lock)."""

    messages: list[Message]
    revision: int
    """The session's revision when taken: a commit checks it, so a change meanwhile wins."""
    system: str
    tokens_before: int
    fixed_tokens: int
    """Tokens outside the messages (system prompt, memory index): counted after as before."""
    context_window: int
    target_tokens: int | None = None
    """The size the compaction aims at (the threshold less the headroom): re-attachments get only the room the
    summary leaves below it, and an automatic compaction that cannot get there is refused as ``not_smaller``."""
    summary_tokens: int = 20_000
    """The summary's budget (a share of the window)."""
    unchanged: bool = False
    """Nothing was added since the last compaction: the history is that compaction's view, as it left it."""


Rehydrate = Callable[[list[Message], "int | None"], "RehydrationResult"]
"""What to re-attach after a compaction that keeps the given messages, within the given room in tokens (None: the
budgets alone); blocking (reads the disk)."""


def _check_smaller(snapshot: CompactionSnapshot, tokens_after: int, trigger: str, parts: str) -> None:
    """Refuse a compaction that would not be smaller, or, automatic, would not get down to its target."""
    figures = f"{tokens_after} tokens: {parts}, system prompt and memory {snapshot.fixed_tokens}"
    if tokens_after >= snapshot.tokens_before:
        raise CompactionError(
            "not_smaller",
            f"The compacted context ({figures}) would not be smaller than the current one "
            f"({snapshot.tokens_before} tokens); nothing changed.",
        )
    target = snapshot.target_tokens
    if trigger == "auto" and target is not None and tokens_after > target:
        raise CompactionError(
            "not_smaller",
            f"The compacted context ({figures}) would not get down to {target} tokens, the room an automatic "
            "compaction must leave below the threshold; nothing changed.",
        )


def _check_worth_summarising(snapshot: CompactionSnapshot, split: CompactionSplit, count: TokenCounter) -> None:
    """Refuse as ``not_smaller`` before any summary is paid for: when nothing was added since the last compaction,
    or when the history is shorter than the summary's frame alone (the smallest result any summary could give)."""
    if snapshot.unchanged:
        raise CompactionError(
            "not_smaller",
            "Nothing was added since the last compaction: compacting again would not make the context smaller; "
            "nothing changed.",
        )
    frame = sum(count.count_message(m) for m in build_compacted_view("", [], split.pending)) + snapshot.fixed_tokens
    if frame >= snapshot.tokens_before:
        raise CompactionError(
            "not_smaller",
            f"The conversation ({snapshot.tokens_before} tokens) is already smaller than a compacted context could "
            f"be (the summary's frame alone: {frame} tokens); nothing changed.",
        )


def cancelled_error() -> CompactionError:
    return CompactionError("cancelled", "The compaction was cancelled; nothing changed.")


async def _summarize(summarizer: Summarizer, request: SummaryRequest) -> Summary:
    try:
        return await summarizer.summarize(request)
    except SummaryError as exc:
        raise CompactionError(exc.kind, str(exc)) from exc


async def run_compaction(
    snapshot: CompactionSnapshot,
    summarizer: Summarizer,
    *,
    rehydrate: Rehydrate,
    count: TokenCounter,
    clock: Callable[[], float],
    instructions: str | None = None,
    trigger: str = "manual",
    progress: ProgressFn | None = None,
    cancel: asyncio.Event | None = None,
) -> CompactionOutcome:
    """Summarise and rehydrate ``snapshot`` into the outcome that would replace it; raises ``CompactionError``."""
    report = progress or (lambda _message, _percent: None)
    split = split_for_compaction(snapshot.messages)
    if not split.history:
        raise CompactionError("empty", "There is nothing to compact yet: the conversation has no history.")
    _check_worth_summarising(snapshot, split, count)
    report("Summarising the conversation", 10)
    request = SummaryRequest(
        split.history, snapshot.system, instructions, snapshot.context_window, snapshot.summary_tokens, cancel=cancel
    )
    summary = await _summarize(summarizer, request)
    if cancel is not None and cancel.is_set():
        raise cancelled_error()
    report("Re-attaching files, plan and skills", 70)
    kept = [split.pending] if split.pending is not None else []
    bare = sum(count.count_message(m) for m in build_compacted_view(summary.text, [], split.pending))
    room = None if snapshot.target_tokens is None else snapshot.target_tokens - snapshot.fixed_tokens - bare
    result = await asyncio.to_thread(rehydrate, kept, room)
    view = build_compacted_view(summary.text, result.attachments, split.pending)
    tokens_after = sum(count.count_message(m) for m in view) + snapshot.fixed_tokens
    re_attached = tokens_after - bare - snapshot.fixed_tokens
    _check_smaller(snapshot, tokens_after, trigger, f"summary {bare}, re-attached files and plan {re_attached}")
    if cancel is not None and cancel.is_set():
        raise cancelled_error()
    boundary = Boundary(
        id=new_boundary_id(),
        trigger=trigger,
        tokens_before=snapshot.tokens_before,
        tokens_after=tokens_after,
        summarizer=summary.summarizer,
        fallback=summary.fallback,
        created_at=clock(),
        messages_summarized=len(split.history),
        extra={"fallbackReason": summary.fallback_reason} if summary.fallback else {},
    )
    rehydrated = [
        {"kind": a.kind, "path": a.path, "tokens": count.count_text(a.text)}
        | ({"lines": a.meta["lines"]} if a.meta.get("lines") else {})
        for a in result.attachments
    ]
    attached = [
        {"block": i, "kind": a.kind, "path": a.path, "partial": bool(a.meta.get("partial"))}
        for i, a in enumerate((a for a in result.attachments if a.text), start=1)
    ]
    return CompactionOutcome(boundary, view, rehydrated, summary, attached)
