"""Session notes: working notes kept up to date in the background, so a compaction need not wait for a model.

The notes (current state, task, files and functions, errors and corrections, learnings, worklog) are rewritten
once the session has grown (``NotesPolicy``), by the model when a key is set, else by the offline
extractor. Each version records ``covered_upto``: how many messages it covers. At compaction time
``NotesSummarizer`` returns up-to-date notes at once, and tops older notes up with the offline
extractor over just the messages they do not cover yet.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from compact_lsp.engine.conversation.messages import Message, tool_uses
from compact_lsp.engine.prompts import NOTES_SECTIONS, NOTES_TITLE, empty_notes, notes_update_prompt
from compact_lsp.engine.summarize.anthropic_api import AnthropicSummarizer
from compact_lsp.engine.summarize.base import Summarizer, Summary, SummaryError, SummaryRequest, run_cancellable
from compact_lsp.engine.summarize.failure_lines import clip
from compact_lsp.engine.summarize.offline import COMMAND_CHARS, ConversationFacts, ToolNames, extract_facts
from compact_lsp.engine.summarize.summary_fit import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from compact_lsp.engine.settings import EngineSettings

log = logging.getLogger(__name__)

MAX_TASK_LINES = 30
MAX_FILE_LINES = 40
MAX_ERROR_LINES = 20
MAX_WORKLOG_LINES = 60
NOTE_LINE_CHARS = 300

_NOTES = re.compile(r"<notes>(.*?)(?:</notes>|\Z)", re.DOTALL)


@dataclass(frozen=True)
class NotesPolicy:
    """When the notes are rewritten: first once the session reaches ``first_after_tokens``, then every
    ``every_tokens`` of growth with at least ``min_tool_calls`` tool calls since the last update."""

    first_after_tokens: int = 10_000
    every_tokens: int = 5_000
    min_tool_calls: int = 3

    def __post_init__(self) -> None:
        if self.first_after_tokens < 0 or self.every_tokens <= 0 or self.min_tool_calls < 0:
            raise ValueError(
                "sessionMemory: firstAfterTokens and minToolCalls must be >= 0 and everyTokens must be > 0"
            )

    def should_update(
        self, total_tokens: int, tool_calls_since_last: int, tokens_at_last_update: int | None = None
    ) -> bool:
        if tokens_at_last_update is None:
            return total_tokens >= self.first_after_tokens
        grown = total_tokens - tokens_at_last_update
        return grown >= self.every_tokens and tool_calls_since_last >= self.min_tool_calls


@dataclass(frozen=True)
class SessionNotes:
    """One version of the notes and how much of the conversation it covers."""

    text: str
    covered_upto: int
    """The notes cover ``messages[:covered_upto]``."""
    tokens_at_update: int = 0
    updated_at: float = 0.0
    writer: str = "offline"

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "coveredUpto": self.covered_upto,
            "tokensAtUpdate": self.tokens_at_update,
            "updatedAt": self.updated_at,
            "writer": self.writer,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionNotes:
        return cls(
            text=str(data["text"]),
            covered_upto=int(data["coveredUpto"]),
            tokens_at_update=int(data.get("tokensAtUpdate", 0)),
            updated_at=float(data.get("updatedAt", 0.0)),
            writer=str(data.get("writer", "offline")),
        )


class NotesWriter(Protocol):
    """Rewrites the notes to cover ``messages`` (the notes so far already cover ``messages[:since]``)."""

    name: str

    async def write_notes(
        self, notes: str, messages: Sequence[Message], since: int, cancel: asyncio.Event | None = None
    ) -> str: ...


def parse_notes(text: str) -> dict[str, list[str]]:
    """The lines of each section of a notes document (unknown sections are kept under their own name)."""
    sections: dict[str, list[str]] = {name: [] for name in NOTES_SECTIONS}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: _trim_blank(lines) for name, lines in sections.items()}


def render_notes(sections: dict[str, list[str]]) -> str:
    out = [NOTES_TITLE]
    for name, lines in sections.items():
        out.append("")
        out.append(f"## {name}")
        out.extend(lines)
    return "\n".join(out) + "\n"


def _trim_blank(lines: list[str]) -> list[str]:
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def notes_from_output(raw: str) -> str:
    """The notes inside a model's ``<notes>`` answer; an empty answer is a ``bad_summary``."""
    match = _NOTES.search(raw)
    text = (match.group(1) if match else raw).strip()
    if not text:
        raise SummaryError("bad_summary", "The model returned empty session notes; the old notes were kept.")
    return text + "\n"


def top_up_notes(notes: str, facts: ConversationFacts) -> str:
    """Fold what the offline extractor found in newer messages into the notes; each section stays bounded."""
    sections = parse_notes(notes or empty_notes())
    current = sections["Current State"]
    new_state: list[str] = []
    if facts.plan_in_progress:
        new_state.append(f"In progress: {facts.plan_in_progress[0]}")
    if facts.last_assistant_text:
        new_state.append("Last words: " + clip(facts.last_assistant_text, NOTE_LINE_CHARS * 3))
    if facts.last_tool_call:
        new_state.append(f"Last tool call: {facts.last_tool_call}")
    if facts.plan:
        new_state.append("Plan:")
        new_state.append(facts.plan)
    if new_state:
        sections["Current State"] = new_state
    else:
        sections["Current State"] = current

    task = sections["Task"]
    task.extend(f"- User: {clip(text, NOTE_LINE_CHARS)}" for text in facts.user_messages)
    sections["Task"] = _keep_first_and_last(task, MAX_TASK_LINES)

    files = sections["Files and Functions"]
    for activity in sorted(facts.files.values(), key=lambda f: f.last_seen):
        line = activity.describe()
        prefix = f"- {activity.path}: "
        old = next((i for i, existing in enumerate(files) if existing.startswith(prefix)), None)
        if old is None:
            files.append(line)
        else:
            files.append(files.pop(old) + "; then " + line[len(prefix) :])
    sections["Files and Functions"] = files[-MAX_FILE_LINES:]

    errors = sections["Errors and Corrections"]
    errors.extend(f"- {clip(e, NOTE_LINE_CHARS)}" for e in facts.errors)
    sections["Errors and Corrections"] = errors[-MAX_ERROR_LINES:]

    worklog = sections["Worklog"]
    worklog.extend(_worklog(facts))
    sections["Worklog"] = worklog[-MAX_WORKLOG_LINES:]
    return render_notes(sections)


def _keep_first_and_last(lines: list[str], limit: int) -> list[str]:
    """The first line (the original request) and the most recent ones."""
    if len(lines) <= limit:
        return lines
    return [lines[0], *lines[-(limit - 1) :]]


def _worklog(facts: ConversationFacts) -> list[str]:
    lines: list[str] = []
    if facts.tool_counts:
        lines.append("- Tools: " + ", ".join(f"{name} x{count}" for name, count in facts.tool_counts.most_common()))
    for run in facts.commands:
        outcome = " (failed)" if run.error else ""
        lines.append(f"- Ran `{clip(run.command, COMMAND_CHARS)}`{outcome}")
    return lines


class OfflineNotesWriter:
    """Tops the notes up with what the offline extractor finds in the messages they do not cover yet."""

    name = "offline"

    def __init__(self, tools: ToolNames | None = None) -> None:
        self.tools = tools or ToolNames()

    async def write_notes(
        self, notes: str, messages: Sequence[Message], since: int, cancel: asyncio.Event | None = None
    ) -> str:
        async def work() -> str:
            return top_up_notes(notes, extract_facts(messages[since:], self.tools))

        return await run_cancellable(work(), cancel)


class ModelNotesWriter:
    """Rewrites the notes with the model (the notes prompt over the whole conversation); when the model fails,
    the offline writer tops them up instead, so the notes never fall behind for long."""

    name = "model"

    def __init__(
        self,
        summarizer: Any,
        *,
        context_window: int = 200_000,
        max_output_tokens: int = 8_000,
        fallback: NotesWriter | None = None,
    ) -> None:
        self.summarizer = summarizer
        """An ``AnthropicSummarizer`` (anything with its ``complete`` method)."""
        self.context_window = context_window
        self.max_output_tokens = max_output_tokens
        self.fallback = fallback or OfflineNotesWriter()

    async def write_notes(
        self, notes: str, messages: Sequence[Message], since: int, cancel: asyncio.Event | None = None
    ) -> str:
        request = SummaryRequest(
            messages=messages,
            context_window=self.context_window,
            max_output_tokens=self.max_output_tokens,
            cancel=cancel,
        )
        try:
            summary = await self.summarizer.complete(request, notes_update_prompt(notes), notes_from_output)
        except SummaryError as exc:
            if exc.kind == "cancelled":
                raise
            log.warning("session notes: the model failed (%s), topping up offline: %s", exc.kind, exc)
            return await self.fallback.write_notes(notes, messages, since, cancel)
        return str(summary.text)


class NotesKeeper:
    """The notes of one session, and when and how they are updated. Safe to drive from a background task:
    updates are serialised, and each works on a snapshot of the messages taken when it starts."""

    def __init__(self, writer: NotesWriter | None = None, policy: NotesPolicy | None = None) -> None:
        self.writer: NotesWriter = writer or OfflineNotesWriter()
        self.policy = policy or NotesPolicy()
        self.notes: SessionNotes | None = None
        self._lock = asyncio.Lock()

    @property
    def updating(self) -> bool:
        return self._lock.locked()

    def tool_calls_since(self, messages: Sequence[Message]) -> int:
        start = self.notes.covered_upto if self.notes is not None else 0
        return sum(1 for m in messages[start:] if m.get("role") == "assistant" for _ in tool_uses(m))

    def should_update(self, total_tokens: int, tool_calls_since_last: int) -> bool:
        last = self.notes.tokens_at_update if self.notes is not None else None
        return self.policy.should_update(total_tokens, tool_calls_since_last, last)

    async def maybe_update(
        self, messages: Sequence[Message], total_tokens: int, cancel: asyncio.Event | None = None
    ) -> bool:
        """Update the notes when the policy says so and no update is running; True when it updated them."""
        if self.updating or not self.should_update(total_tokens, self.tool_calls_since(messages)):
            return False
        await self.update(messages, total_tokens=total_tokens, cancel=cancel)
        return True

    async def update(
        self,
        messages: Sequence[Message],
        upto_index: int | None = None,
        *,
        total_tokens: int = 0,
        cancel: asyncio.Event | None = None,
    ) -> SessionNotes:
        """Rewrite the notes to cover ``messages[:upto_index]`` (default all); a failure keeps the old."""
        async with self._lock:
            upto = len(messages) if upto_index is None else max(0, min(upto_index, len(messages)))
            snapshot = list(messages[:upto])
            current = self.notes
            since = current.covered_upto if current is not None and current.covered_upto <= upto else 0
            text = current.text if current is not None and since else empty_notes()
            started = time.monotonic()
            new_text = await self.writer.write_notes(text, snapshot, since, cancel)
            self.notes = SessionNotes(
                text=new_text,
                covered_upto=upto,
                tokens_at_update=total_tokens,
                updated_at=time.time(),
                writer=self.writer.name,
            )
            log.debug(
                "session notes: %s covered %d..%d in %.0f ms",
                self.writer.name,
                since,
                upto,
                (time.monotonic() - started) * 1000,
            )
            return self.notes

    def rebase(self, covered_upto: int, total_tokens: int) -> None:
        """After a compaction replaced the history, the notes cover the first ``covered_upto`` messages."""
        if self.notes is not None:
            self.notes = replace(self.notes, covered_upto=covered_upto, tokens_at_update=total_tokens)


class NotesSummarizer:
    """Compaction from the session notes: instant when they are up to date, topped up offline when older.

    With no notes yet, or when the user gave ``/compact`` instructions the notes cannot follow, the
    ``fallback`` summariser (the model or offline one) makes the summary instead.
    """

    name = "session-memory"  # the word compaction results and journals carry for it: kept, as clients read it

    def __init__(self, keeper: NotesKeeper, fallback: Summarizer, tools: ToolNames | None = None) -> None:
        self.keeper = keeper
        self.fallback = fallback
        self.tools = tools or ToolNames()

    async def summarize(self, request: SummaryRequest) -> Summary:
        notes = self.keeper.notes
        too_big = notes is not None and len(notes.text) > request.max_output_tokens * CHARS_PER_TOKEN
        if (
            notes is None
            or too_big
            or not notes.text.strip()
            or (request.instructions and request.instructions.strip())
        ):
            return await self.fallback.summarize(request)  # too big: the window shrank, or the notes outgrew it
        messages = request.messages
        if notes.covered_upto >= len(messages):
            return Summary(text=notes.text.strip(), summarizer=self.name)

        async def top_up() -> Summary:
            facts = extract_facts(messages[notes.covered_upto :], self.tools)
            return Summary(text=top_up_notes(notes.text, facts).strip(), summarizer=self.name)

        return await run_cancellable(top_up(), request.cancel)


def notes_writer_from_settings(settings: EngineSettings, env: Mapping[str, str] | None = None) -> NotesWriter:
    """The model notes writer when a key is set (offline when it fails), else the offline one."""
    environ = os.environ if env is None else env
    api_key: str | None = getattr(settings, "api_key", None) or environ.get("ANTHROPIC_API_KEY") or None
    if not api_key:
        return OfflineNotesWriter()
    model = settings.compaction_model or settings.model
    summarizer = AnthropicSummarizer(model=model, api_key=api_key, base_url=settings.base_url, env=environ)
    return ModelNotesWriter(summarizer, context_window=settings.context_window)


def notes_setup(settings: EngineSettings) -> tuple[NotesWriter, NotesPolicy]:
    """The notes writer (the model only when allowed and a key is set) and when to update."""
    notes = settings.session_notes
    writer = notes_writer_from_settings(settings) if notes.use_model else OfflineNotesWriter()
    policy = NotesPolicy(notes.first_after_tokens, notes.every_tokens, notes.min_tool_calls)
    return writer, policy
