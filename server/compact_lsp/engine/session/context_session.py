"""A managed conversation: the one object the server, the agent and the CLI drive.

``ContextSession`` decides every change to a conversation, writes it to the injected ``Journal`` as a record, then
applies it (``SessionState._apply``, engine/session/session_state.py, which also holds the state and answers the
questions about it): the journal on disk is the append-only transcript, and ``ContextSession.replay`` rebuilds the
same state from it. A failed write changes nothing. The record types are listed in engine/session/journal.py.

The changes: appends (validated, then the automatic microcompaction triggers and the one auto-compaction
decision, ``should_compact``); microcompaction; what the model is told when a file it saw changed
(``notice_for``: the server reads the file off the loop, the session decides); reads the server served; background
notes (a ``NotesJob``, engine/session/session_notes.py); full compaction, computed by ``run_compaction`` on a snapshot
(engine/compaction/full_compaction.py) and committed here when the session did not move on meanwhile; and undo.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.compaction.eviction import EvictionRecord, Trigger
from compact_lsp.engine.compaction.full_compaction import (
    CompactionError,
    CompactionOutcome,
    CompactionSnapshot,
    ProgressFn,
    run_compaction,
    run_pre_compact_hook,
)
from compact_lsp.engine.compaction.microcompact import idle_due
from compact_lsp.engine.compaction.microcompact_plan import MicrocompactPlan, apply_plan
from compact_lsp.engine.compaction.pins import pin_record
from compact_lsp.engine.conversation.messages import (
    Message,
    MessageShapeError,
    check_encodable,
    check_nesting,
    normalize_message,
)
from compact_lsp.engine.conversation.titles import check_title, title_record
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.conversation.validate import append_problems, repair, validate
from compact_lsp.engine.files.admitted_files import Reason, admit_record
from compact_lsp.engine.files.change_notices import display_path
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.session.journal import (
    Journal,
    NullJournal,
    compaction_record,
    header_record,
    pending_record,
    rewrite_record,
)
from compact_lsp.engine.session.record_checks import SkippedRecord
from compact_lsp.engine.session.session_notes import NotesJob, notes_setup
from compact_lsp.engine.session.session_state import SessionState
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.base import Summarizer

log = logging.getLogger(__name__)


class ConversationError(ValueError):
    """Messages that would make the conversation invalid for the API; the text lists the problems."""


@dataclass(frozen=True)
class AppendOutcome:
    usage: ContextUsage
    microcompaction: EvictionRecord | None = None
    compaction_due: bool = False


class ContextSession(SessionState):
    """One conversation under management; see the module docstring for the journal contract."""

    def __init__(
        self,
        session_id: str,
        *,
        settings: EngineSettings,
        counter: TokenCounter,
        title: str = "",
        system: str = "",
        clock: Callable[[], float] = time.time,
        workspace_root: str | None = None,
        memory: ManagedMemory | None = None,
        journal: Journal | None = None,
        created_at: float | None = None,
        write_header: bool = True,
        source: str | None = None,
    ) -> None:
        super().__init__(
            session_id, settings=settings, counter=counter, title=title, system=system, clock=clock,
            workspace_root=workspace_root, memory=memory, created_at=created_at, source=source,
        )  # fmt: skip
        self.journal: Journal = journal or NullJournal()
        if write_header:
            self.journal.write(
                header_record(session_id, title=title, system=system, created_at=self.created_at, source=source)
            )

    @classmethod
    def replay(
        cls,
        records: Iterable[dict[str, Any]],
        *,
        settings: EngineSettings,
        counter: TokenCounter,
        clock: Callable[[], float] = time.time,
        workspace_root: str | None = None,
        memory: ManagedMemory | None = None,
        journal: Journal | None = None,
        on_skipped: Callable[[SkippedRecord], None] | None = None,
    ) -> ContextSession:
        """Rebuild a session from its journal records (the header first). A record that cannot be applied is
        skipped and passed to ``on_skipped`` (engine/session/record_checks.py); the rest load."""
        skipped: list[SkippedRecord] = []
        it = iter(records)
        header = next(it, None)
        if not header or header.get("type") != "header" or not isinstance(header.get("sessionId"), str):
            raise ValueError("session journal does not start with a header record")
        created_at = header.get("createdAt")
        if not isinstance(created_at, (int, float)) or isinstance(created_at, bool):
            skipped.append(SkippedRecord(0, "the header's 'createdAt' is not a number; the load time stands in"))
            created_at = clock()
        session = cls(
            header["sessionId"],
            settings=settings,
            counter=counter,
            title=str(header.get("title", "")),
            system=str(header.get("system", "")),
            clock=clock,
            workspace_root=workspace_root,
            memory=memory,
            journal=None,
            created_at=float(created_at),
            write_header=False,
            source=header["source"] if isinstance(header.get("source"), str) else None,
        )
        skipped += session.follow(it, first_index=1)
        session.journal = journal or NullJournal()
        session._repair_loaded()
        if on_skipped is not None:
            for bad in skipped:
                on_skipped(bad)
        return session

    def _repair_loaded(self) -> None:
        """After skipped records, make the history one the API accepts again (a skipped middle line may have held
        a tool_result). The repair is journalled, so later records' indexes replay onto the same history; a
        session this process may not write (another server owns it) is repaired in memory only."""
        if not validate(self.messages):
            return
        fixed = repair(self.messages, alternating=True)
        record = {"type": "repair", "messages": fixed.messages, "actions": fixed.actions, "at": self.clock()}
        try:
            self.journal.write(record)
        except Exception as exc:  # a full disk, or another server owns the session: this one only reads it
            log.warning("session %s: repaired in memory only (%s)", self.id, exc)
        self._apply(record)
        log.warning("session %s: repaired after loading: %s", self.id, "; ".join(fixed.actions))

    # -- changes ----------------------------------------------------------------------------------------------

    def update_settings(self, settings: EngineSettings) -> None:
        """Swap settings in place; the history and the read-file state survive."""
        self.settings = settings
        self.memory = ManagedMemory.from_settings(settings.memory, self.workspace_root)
        self.session_memory.writer, self.session_memory.policy = notes_setup(settings)

    def append(self, messages: list[Any], reported_usage: Mapping[str, Any] | None = None) -> AppendOutcome:
        """Validate and append; then run the automatic microcompaction triggers (idle, then size)."""
        if not isinstance(messages, list):
            raise MessageShapeError("'messages' must be a list of messages")
        normalized = [normalize_message(m, f"messages[{i}]") for i, m in enumerate(messages)]
        if reported_usage is not None:
            check_nesting(reported_usage, "usage")
        check_encodable([*normalized, dict(reported_usage or {})])
        self._check_append(normalized)
        now = self.clock()
        idle = None
        if (
            normalized
            and normalized[0]["role"] == "assistant"
            and idle_due(self.settings.microcompact, now, self.last_assistant_at)
        ):
            idle = self._plan_micro("idle", now)
        record: dict[str, Any] = {"type": "append", "messages": normalized, "at": now}
        if reported_usage is not None:
            record["usage"] = dict(reported_usage)
        writers = {*self.settings.write_tools, *self.settings.edit_tools}
        self._notices.discard_written(normalized, writers, self.workspace_root)
        if self._notices and self.messages and self.messages[-1]["role"] == "user":
            self._write_and_apply({"type": "notice", "text": self._notices.text(), "at": now})
        eviction = None
        if idle is not None:
            eviction = self._commit_micro(idle, now)
        self._write_and_apply(record)
        threshold = self.settings.microcompact.size_threshold_tokens
        # the ledger's tool-result total is exact and costs nothing; the trigger measures only what it may clear,
        # so the markers it left can be taken off first: plan (a scan of the whole history) only when it can fire
        results = self._history.ledger.totals.get("tool_result", 0) - self._cleared_markers_tokens
        if threshold != -1 and results > threshold:
            size = self._plan_micro("size", now)
            if size is not None:
                eviction = self._commit_micro(size, now)
        usage = self.usage()
        due = self.should_compact(usage)
        if due:
            # microcompaction first, when clearing old tool results alone gets under the threshold: no summary
            forced = self._plan_micro("forced", now)
            if forced is not None and forced.tokens_after + self.fixed_tokens() < usage.auto_compact_threshold:
                eviction = self._commit_micro(forced, now)
                usage, due = self.usage(), False
        return AppendOutcome(usage=usage, microcompaction=eviction, compaction_due=due)

    def _check_append(self, new: list[Message]) -> None:
        """Would ``new`` keep the conversation valid? Only the history's end is checked (see ``append_problems``)."""
        history = self.messages
        window = self._notices.folded_into(history[-2:])
        cut = len(history) > len(window)
        problems = append_problems(window, new, self._known_tool_use_ids(), cut=cut)
        if problems:
            raise ConversationError(f"these messages would make the conversation invalid: {'; '.join(problems)}")

    def microcompact(self, trigger: Trigger = "forced") -> EvictionRecord | None:
        """Run microcompaction now; None when nothing would be cleared."""
        now = self.clock()
        plan = self._plan_micro(trigger, now)
        return self._commit_micro(plan, now) if plan is not None else None

    def deny(self, real_path: str) -> None:
        """The user refused the agent this path: it never comes back through rehydration."""
        if real_path not in self.denied_paths:
            self._write_and_apply({"type": "deny", "path": real_path, "at": self.clock()})

    def admit(self, real_path: str, reason: Reason = "read", *, admitted: bool = True) -> None:
        """The user let the agent use this file outside the work roots (``admitted=False``: revoke that)."""
        if any(f.path == real_path for f in self.admitted_files) != admitted:
            self._write_and_apply(admit_record(real_path, admitted=admitted, reason=reason, at=self.clock()))

    def rename(self, title: str) -> None:
        """Give the session a new title (``TitleError`` before anything is written when it is not one)."""
        self._write_and_apply(title_record(check_title(title), at=self.clock()))

    def pin(self, *, tool_use_id: str | None = None, path: str | None = None, pinned: bool = True) -> None:
        """Pin (or with ``pinned=False`` unpin) a tool result and/or a file; ``PinError`` before anything is
        written when the request is invalid; nothing is written when it would change nothing."""
        record = pin_record(
            self.pins, tool_use_id=tool_use_id, path=path, pinned=pinned, known_tool_use_ids=self._known_tool_use_ids(),
            work_roots=self.work_roots, workspace_root=self.workspace_root, at=self.clock(),
        )  # fmt: skip
        if record is not None:
            self._write_and_apply(record)

    def discard_change_notice(self, path: str) -> None:
        """Forget a pending notice: the change was the agent's own (its write or edit of that path)."""
        if self._notices.has(path, self.workspace_root):
            self._write_and_apply(pending_record(path, None, at=self.clock()))

    def add_change_notice(self, path: str, text: str) -> None:
        """A file the model saw changed on disk: tell it on the next view (one bounded notice per path). Journalled
        as it arises, so a restart before the next append still tells the model."""
        self._write_and_apply(pending_record(path, text, at=self.clock()))

    def notice_change(self, path: str, text_now: str | None, *, exists: bool = True) -> bool:
        """Queue ``notice_for``'s notice for the next view; True when there was one."""
        notice = self.notice_for(path, text_now, exists=exists)
        if notice is not None:
            self.add_change_notice(display_path(path, self.workspace_root), notice)
        return notice is not None

    def record_read(
        self,
        path: str,
        content: str,
        *,
        tool_use_id: str | None = None,
        start_line: int | None = None,
        num_lines: int | None = None,
        total_lines: int | None = None,
    ) -> None:
        """A read the server served itself (compact/readFile): journalled so a reload knows it too."""
        self._write_and_apply(
            {
                "type": "read",
                "path": path,
                "content": content,
                "toolUseId": tool_use_id,
                "startLine": start_line,
                "numLines": num_lines,
                "totalLines": total_lines,
                "at": self.clock(),
            }
        )

    # -- session memory ---------------------------------------------------------------------------------------

    def commit_notes(self, job: NotesJob) -> bool:
        """Journal the notes ``job`` wrote, unless history was replaced meanwhile; True when committed."""
        if job.notes is None:
            return False
        if self._compactions.generation != job.generation:
            self.session_memory.notes = None  # they describe a history that is gone; start afresh
            return False
        self._write_and_apply({"type": "notes", "notes": job.notes.to_dict(), "at": self.clock()})
        return True

    async def update_notes_if_due(self) -> bool:
        """Snapshot, write and commit in one go (for callers that own the session outright, like tests)."""
        job = self.notes_job()
        if job is None:
            return False
        await job.run()
        return self.commit_notes(job)

    # -- full compaction ------------------------------------------------------------------------------------

    def should_compact(self, usage: ContextUsage, overhead: int = 0) -> bool:
        """The one automatic-compaction decision: on, not stopped by the circuit breaker, none under way, and the
        next request (``usage`` plus ``overhead``, tokens the session does not count such as an agent's tool
        list) or the API's last report at or over the threshold."""
        if not self.settings.auto_compact.enabled or self.auto_compact_blocked or self.compacting:
            return False
        return max(usage.total + overhead, usage.reported or 0) >= usage.auto_compact_threshold

    @contextlib.contextmanager
    def compaction_claim(self) -> Iterator[None]:
        """Hold the session's one compaction; ``CompactionError("in_progress")`` when another holds it. A server
        claims before it waits for its lock, so a second request is refused at once and status says so."""
        if self.compacting:
            raise CompactionError(
                "in_progress",
                f"A compaction of session {self.id} is already in progress; wait for it to finish "
                '(compact/status shows "compacting": true until then).',
            )
        self.compacting = True
        try:
            yield
        finally:
            self.compacting = False

    async def compact(
        self,
        summarizer: Summarizer,
        *,
        instructions: str | None = None,
        trigger: str = "manual",
        progress: ProgressFn | None = None,
        cancel: asyncio.Event | None = None,
        claimed: bool = False,
    ) -> CompactionOutcome:
        """Replace history by a summary plus rehydrated essentials; a failure changes nothing.

        The pre-compaction hook first (its output adds instructions), then ``run_compaction`` on a snapshot; the
        outcome is committed only when nothing changed the session meanwhile. ``claimed``: the caller holds
        ``compaction_claim()`` already.
        """
        with contextlib.nullcontext() if claimed else self.compaction_claim():
            try:
                command = self.settings.pre_compact_command
                if command:
                    extra = await asyncio.to_thread(run_pre_compact_hook, command, self.workspace_root)
                    instructions = "\n\n".join(part for part in (instructions, extra) if part) or None
                snapshot = CompactionSnapshot(
                    list(self.messages),
                    self.revision,
                    self.system_prompt(),
                    self.usage().total,
                    self.fixed_tokens(),
                    self.settings.context_window,
                )
                outcome = await run_compaction(
                    snapshot, summarizer, rehydrate=self.rehydration, count=self.counter, clock=self.clock,
                    instructions=instructions, trigger=trigger, progress=progress, cancel=cancel,
                )  # fmt: skip
                if self.revision != snapshot.revision:
                    raise CompactionError("conflict", "The conversation changed during compaction; nothing changed.")
                if progress is not None:
                    progress("Committing", 95)
                self._write_and_apply(compaction_record(outcome))
            except CompactionError:
                self._compactions.finished(trigger, ok=False)
                raise
            self._compactions.finished(trigger, ok=True)
            return outcome

    def undo(self) -> dict[str, Any]:
        """Restore the exact view from before the last compaction, keeping messages added since (if still valid)."""
        if self.compacting:
            raise CompactionError("in_progress", "A compaction is in progress; undo after it finishes.")
        state = self._compactions.undo_target(self.messages)
        self._write_and_apply({"type": "undo", "boundaryId": state.boundary_id, "at": self.clock()})
        return {"restored": True, "boundaryId": state.boundary_id, "tokensAfter": self.usage().total}

    # -- internals --------------------------------------------------------------------------------------------

    def _commit_micro(self, plan: MicrocompactPlan, now: float) -> EvictionRecord:
        result = apply_plan(self.messages, plan)
        changes = [
            {"index": i, "message": m}
            for i, (old, m) in enumerate(zip(self.messages, result.messages, strict=True))
            if old is not m
        ]
        self._write_and_apply(rewrite_record(changes, result.eviction, at=now))
        return result.eviction

    def _write_and_apply(self, record: dict[str, Any]) -> None:
        if record["type"] != "append":  # append() has just normalised and validated its messages
            self._check_record(record)  # what replay would refuse is never written
        self.journal.write(record)
        self._apply(record)
