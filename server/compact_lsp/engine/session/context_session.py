"""A managed conversation: the one object the server, the agent and the CLI drive.

``ContextSession`` decides every change to a conversation, writes it to the injected ``Journal`` as a record, then
applies it (``commit``): the journal on disk is the append-only transcript. The session room, one idea a file:

- ``session_state.py``: what the records made of the session, and ``SessionState.apply``, the one place each
  record takes effect; ``session_loading.replay_session`` rebuilds the same state from a journal.
- this module: the changes (appends, validated, then the automatic microcompaction triggers and the one
  auto-compaction decision; microcompaction; change notices when a file the model saw changed, ``notice_for``;
  reads the server served; pins, denials, titles) and the questions about the result (view, usage, roots).
- ``session_microcompaction.py``: the automatic microcompaction triggers around an append, planned and committed.
- ``session_compacting.py``: a full compaction, claimed, run on a snapshot, committed when the session did not
  move on meanwhile; undo. ``session_compactions.py`` keeps what stands and the circuit breaker.
- ``notes_job.py``: the background notes, snapshotted under the lock and committed unless history changed.
- ``session_status.py``: what ``compact/status`` reports. ``journal.py``: the record types.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from compact_lsp.engine.compaction.eviction import EvictionRecord, Trigger
from compact_lsp.engine.compaction.full_compaction import CompactionOutcome, ProgressFn
from compact_lsp.engine.compaction.microcompact_plan import MicrocompactPlan
from compact_lsp.engine.compaction.pins import pin_record
from compact_lsp.engine.compaction.rehydration import RehydrationResult
from compact_lsp.engine.conversation.messages import (
    Message,
    MessageShapeError,
    Session,
    check_encodable,
    check_finite,
    check_nesting,
    merged_user_turns,
    normalize_message,
)
from compact_lsp.engine.conversation.next_compaction import UserTurns
from compact_lsp.engine.conversation.titles import check_title, title_record
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.conversation.validate import append_problems
from compact_lsp.engine.files.admitted_files import AdmittedFile, Reason, admit_record, bindable
from compact_lsp.engine.files.allowed_roots import work_roots
from compact_lsp.engine.files.change_notices import SeenText, display_path
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.files.file_tool_calls import check_input_paths
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.session.journal import Journal, NullJournal, header_record, pending_record, read_record
from compact_lsp.engine.session.own_auto_compaction import own_usage
from compact_lsp.engine.session.record_checks import SkippedRecord
from compact_lsp.engine.session.session_compacting import (
    UndoOutcome,
    compact,
    compaction_claim,
    rehydration,
    should_compact,
    undo,
)
from compact_lsp.engine.session.session_microcompaction import AppendOutcome, after_append, commit_plan, idle_plan, plan
from compact_lsp.engine.session.session_state import SessionState
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.base import Summarizer
from compact_lsp.engine.summarize.session_notes import NotesKeeper, NotesSummarizer, notes_setup

log = logging.getLogger(__name__)


class ConversationError(ValueError):
    """Messages that would make the conversation invalid for the API; the text lists the problems."""


class ContextSession:
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
        self.id = session_id
        self.source = source
        """Who made the session (``chat``, ``import``, ``api``) as its header says; None in older journals."""
        self.settings = settings
        self.counter = counter
        self.clock = clock
        self.workspace_root = workspace_root
        self.memory = memory or ManagedMemory.from_settings(settings.memory, workspace_root)
        self.created_at = created_at if created_at is not None else clock()
        self.compacting = False
        """A full compaction holds ``compaction_claim()`` (it may still be waiting for a server's lock)."""
        self._base_system = system
        self.read_state = ReadFileState(
            capacity=settings.read_state_capacity, clock=clock, read_tools=settings.read_tools,
            write_tools=settings.write_tools, edit_tools=settings.edit_tools, cwd=workspace_root, counter=counter,
        )  # fmt: skip
        self.notes_keeper = NotesKeeper(*notes_setup(settings))
        """Background notes that make compaction instant (engine/summarize/session_notes.py)."""
        self.state = SessionState(
            title=title, updated_at=self.created_at, counter=counter, workspace_root=workspace_root, clock=clock,
            read_state=self.read_state, notes_keeper=self.notes_keeper, source=source,
        )  # fmt: skip
        """What the journal's records made of the session, and the one place they take effect
        (engine/session/session_state.py)."""
        self.pins = self.state.pins
        """Pinned tool results (never microcompacted) and files (re-attached first); engine/compaction/pins.py."""
        self.denied_paths = self.state.denied_paths
        """Real paths the user refused the agent; never rehydrated (journalled, so a reload remembers)."""
        self.journal: Journal = journal or NullJournal()
        self._turns = UserTurns()
        """The user turns so far, counted as messages come: the pace of our next automatic compaction."""
        self.request_overhead = 0
        """Tokens our agent's next request carries that the session does not count (its prompt, its tools)."""
        if write_header:
            self.journal.write(
                header_record(session_id, title=title, system=system, created_at=self.created_at, source=source)
            )

    def follow(self, records: Iterable[dict[str, Any]], first_index: int = 0) -> list[SkippedRecord]:
        """Apply records already in the journal (replay, or another server's appends to a session this one only
        follows); one that cannot be applied is skipped and returned, the rest apply."""
        return self.state.follow(records, self.settings, first_index)

    # -- what the session holds (engine/session/session_state.py) ----------------------------------------------

    @property
    def title(self) -> str:
        return self.state.title

    @property
    def revision(self) -> int:
        """Counts applied records: a long operation compares it to see whether the session changed meanwhile."""
        return self.state.revision

    @property
    def messages(self) -> list[Message]:
        """The managed history (without pending notices); do not mutate."""
        return self.state.messages

    @property
    def last_microcompaction(self) -> EvictionRecord | None:
        return self.state.last_microcompaction

    # -- questions --------------------------------------------------------------------------------------------

    def view(self) -> list[Message]:
        """Exactly what to send to the model next: history plus pending change notices."""
        return self.state.notices.folded_into(self.messages)

    @property
    def work_roots(self) -> AllowedRoots:
        """Where the agent may work and rehydration may draw files from: every workspace folder and the added
        directories (``additionalDirectories``), the workspace root first; never anything else."""
        return work_roots(self.workspace_root, self.settings)

    @property
    def admitted_files(self) -> list[AdmittedFile]:
        return self.state.admitted.listed(self.work_roots)

    @property
    def rehydration_roots(self) -> list[str]:
        """What rehydration may draw files from: the work roots, then each admitted file."""
        return [*self.work_roots.paths, *(f.path for f in self.admitted_files)]

    @property
    def allowed_roots(self) -> AllowedRoots:
        """Where the server may re-read on its own (the file gate): work, memory roots, admitted files (exactly)."""
        roots = self.work_roots.plus(*(root.path for root in self.memory.roots))
        admitted = self.admitted_files
        bindings = {f.path: f.identity for f in admitted if f.identity is not None}
        return roots.plus_files(*(f.path for f in admitted)).bound(bindings)

    def system_prompt(self) -> str:
        section = self.memory.system_prompt_section()
        return f"{self._base_system}\n\n{section}".strip() if section else self._base_system

    def fixed_tokens(self) -> int:
        """Tokens outside the messages: the system prompt and the memory index."""
        return self.counter.count_text(self._base_system) + self.counter.count_text(self.memory.system_prompt_section())

    def usage(self) -> ContextUsage:
        history, notices = self.state.history, self.state.notices
        by_kind = history.ledger.totals
        by_kind["system"] = by_kind.get("system", 0) + self.counter.count_text(self._base_system)
        by_kind["memory"] = by_kind.get("memory", 0) + self.counter.count_text(self.memory.system_prompt_section())
        if notices:
            by_kind["attachments"] = by_kind.get("attachments", 0) + self.counter.count_text(notices.text())
        turns, compactions = self._turns(self.messages), self.state.compactions
        return own_usage(by_kind, self.settings, history.reported, compactions, turns, self.request_overhead)

    def session(self) -> Session:
        return Session(id=self.id, system=self.system_prompt(), messages=self.view(), title=self.title)

    def notice_for(self, path: str, text_now: str | None, *, exists: bool = True) -> str | None:
        """What to tell the model now that the file at real path ``path`` holds ``text_now``; None: nothing.

        ``text_now`` None means the file is gone, or, with ``exists``, there but not text (binary, unreadable,
        too big): the model is told to read it again, without a diff. A diff needs what the model saw of the
        file; without it, a file whose text hashes as the model's copy did is unchanged (touched, or changed and
        changed back).
        """
        record = self.read_state.get(path)
        if record is None:
            return None
        return self.state.seen.notice_for(record, display_path(path, self.workspace_root), text_now, exists)

    def plan_microcompaction(self, trigger: Trigger = "forced") -> MicrocompactPlan | None:
        """What microcompaction would clear now, without changing anything."""
        return plan(self, trigger, self.clock())

    # -- changes ----------------------------------------------------------------------------------------------

    def update_settings(self, settings: EngineSettings) -> None:
        """Swap settings in place; the history and the read-file state survive."""
        self.settings = settings
        self.state.compactions.retry_at = None  # what the user changed may make room: the next crossing tries
        self.memory = ManagedMemory.from_settings(settings.memory, self.workspace_root)
        self.notes_keeper.writer, self.notes_keeper.policy = notes_setup(settings)

    def append(
        self, messages: list[Any], reported_usage: Mapping[str, Any] | None = None, *, from_model: bool = False
    ) -> AppendOutcome:
        """Validate and append; then run the automatic microcompaction triggers (idle, then size).

        ``from_model``: our agent's model wrote these messages. A tool path in them that cannot name a file is the
        model's mistake, not the client's: the call is kept, tied to no file (as a call journalled before the path
        rule), and the tool answers it with an error result; from anyone else such a path is refused here."""
        if not isinstance(messages, list):
            raise MessageShapeError("'messages' must be a list of messages")
        normalized = merged_user_turns([normalize_message(m, f"messages[{i}]") for i, m in enumerate(messages)])
        if reported_usage is not None:
            check_nesting(reported_usage, "usage")
        check_encodable([*normalized, dict(reported_usage or {})])
        check_finite(normalized, "messages")
        check_finite(reported_usage, "usage")
        for i, message in enumerate(normalized):
            if not from_model:
                check_input_paths(message, f"messages[{i}]")
        self._check_append(normalized)
        now = self.clock()
        idle = idle_plan(self, normalized, now)
        record: dict[str, Any] = {"type": "append", "messages": normalized, "at": now}
        if reported_usage is not None:
            record["usage"] = dict(reported_usage)
        writers = {*self.settings.write_tools, *self.settings.edit_tools}
        self.state.notices.discard_written(normalized, writers, self.workspace_root)
        if self.state.notices and self.messages and self.messages[-1]["role"] == "user":
            self.commit({"type": "notice", "text": self.state.notices.text(), "at": now})
        eviction = commit_plan(self, idle, now) if idle is not None else None
        self.commit(record)
        return after_append(self, now, eviction)

    def _check_append(self, new: list[Message]) -> None:
        """Would ``new`` keep the conversation valid? Only the history's end is checked (see ``append_problems``)."""
        history = self.messages
        window = self.state.notices.folded_into(history[-2:])
        cut = len(history) > len(window)
        problems = append_problems(window, new, self.state.known_tool_use_ids(), cut=cut)
        if problems:
            raise ConversationError(f"these messages would make the conversation invalid: {'; '.join(problems)}")

    def microcompact(self, trigger: Trigger = "forced") -> EvictionRecord | None:
        """Run microcompaction now; None when nothing would be cleared."""
        now = self.clock()
        planned = plan(self, trigger, now)
        return commit_plan(self, planned, now) if planned is not None else None

    def deny(self, real_path: str) -> None:
        """The user refused the agent this path: it never comes back through rehydration."""
        if real_path not in self.denied_paths:
            self.commit({"type": "deny", "path": real_path, "at": self.clock()})

    def admit(self, real_path: str, reason: Reason = "read", *, admitted: bool = True) -> None:
        """The user let the agent use this file outside the work roots (``admitted=False``: revoke that), bound to
        the file it is now (``admitted_files.bindable``)."""
        now = next((f.reason for f in self.admitted_files if f.path == real_path), None)
        revoking_more = not admitted and real_path not in self.state.admitted.revoked  # a proposal, say
        if (now is not None) != admitted or (admitted and now != reason) or revoking_more:
            identity = bindable(real_path) if admitted else None
            record = admit_record(real_path, admitted=admitted, reason=reason, at=self.clock(), identity=identity)
            self.commit(record)

    def rename(self, title: str) -> None:
        """Give the session a new title (``TitleError`` before anything is written when it is not one)."""
        self.commit(title_record(check_title(title), at=self.clock()))

    def pin(self, *, tool_use_id: str | None = None, path: str | None = None, pinned: bool = True) -> None:
        """Pin (or with ``pinned=False`` unpin) a tool result and/or a file; ``PinError`` before anything is
        written when the request is invalid; nothing is written when it would change nothing."""
        record = pin_record(
            self.pins, tool_use_id=tool_use_id, path=path, pinned=pinned,
            known_tool_use_ids=self.state.known_tool_use_ids(), work_roots=self.work_roots,
            workspace_root=self.workspace_root, at=self.clock(),
        )  # fmt: skip
        if record is not None:
            self.commit(record)

    def discard_change_notice(self, path: str) -> None:
        """Forget a pending notice: the change was the agent's own (its write or edit of that path)."""
        if self.state.notices.has(path, self.workspace_root):
            self.commit(pending_record(path, None, at=self.clock()))

    def own_change(self, real_path: str, text: str) -> None:
        """The agent itself just wrote ``text`` to ``real_path`` (a write, or an edit applied): that is what it knows
        of the file now, so the watcher's news of this change is no news (a notice already queued for it, from the
        watcher running before this, is withdrawn). The append of the call's result learns the same from the call
        (``SessionState``'s working set), so a reload knows it too."""
        self.state.seen.put(real_path, SeenText(text))
        self.discard_change_notice(display_path(real_path, self.workspace_root))

    def add_change_notice(self, path: str, text: str) -> None:
        """A file the model saw changed on disk: tell it on the next view (one bounded notice per path). Journalled
        as it arises, so a restart before the next append still tells the model."""
        self.commit(pending_record(path, text, at=self.clock()))

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
        record = read_record(
            path, content, tool_use_id=tool_use_id, start_line=start_line, num_lines=num_lines,
            total_lines=total_lines, at=self.clock(),
        )  # fmt: skip
        self.commit(record)

    # -- full compaction (engine/session/session_compacting.py) ----------------------------------------------

    def should_compact(self, usage: ContextUsage, overhead: int = 0) -> bool:
        """The one automatic-compaction decision (``session_compacting.should_compact``)."""
        return should_compact(self, usage, overhead)

    def compaction_claim(self) -> contextlib.AbstractContextManager[None]:
        """Hold the session's one compaction; ``CompactionError("in_progress")`` when another holds it."""
        return compaction_claim(self)

    def rehydration(self, kept: list[Message], room: int | None = None) -> RehydrationResult:
        """What would be re-attached after a compaction that keeps ``kept`` (disk reads: call off the loop)."""
        return rehydration(self, kept, room)

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
        """Replace history by a summary plus rehydrated essentials; a failure changes nothing
        (``session_compacting.compact``). Up-to-date session notes make the summary, whoever compacts (the server,
        the agent's direct path, the CLI); ``summarizer`` is the one for when they cannot."""
        notes_first = NotesSummarizer(self.notes_keeper, summarizer)
        return await compact(
            self, notes_first, instructions=instructions, trigger=trigger, progress=progress, cancel=cancel,
            claimed=claimed,
        )  # fmt: skip

    def undo(self) -> UndoOutcome:
        """Restore the exact view from before the last compaction, keeping messages added since (if still valid)."""
        return undo(self)

    # -- internals --------------------------------------------------------------------------------------------

    def commit(self, record: dict[str, Any]) -> None:
        """Journal ``record``, then apply it: every change takes this path (a failed write changes nothing)."""
        if record["type"] != "append":  # append() has just normalised and validated its messages
            self.state.check(record)  # what replay would refuse is never written
        self.journal.write(record)
        self.state.apply(record, self.settings)
