"""What a session is now, rebuilt from its journal records: the state ``ContextSession`` changes.

``SessionState`` holds the history and its token ledger (``ManagedHistory``), the read-file state, what the model
saw of each file and the pending change notices (engine/files/change_notices.py), the standing compactions
(engine/session/session_compactions.py), the session notes and the denied paths; it answers every question about them
(the view, the usage, the status, what a compaction would re-attach, what notice a changed file deserves, what
microcompaction would clear, whether a notes update is due). It changes only by ``_apply(record)``, the
one place each journal record type (engine/session/journal.py) takes effect, so a reload that replays the records
rebuilds the same state. Deciding what to change and journalling it first is ``ContextSession``'s part
(engine/session/context_session.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from compact_lsp.engine.compaction.eviction import EvictionRecord, Trigger
from compact_lsp.engine.compaction.microcompact import plan_microcompaction
from compact_lsp.engine.compaction.microcompact_plan import MicrocompactPlan
from compact_lsp.engine.compaction.pins import Pins
from compact_lsp.engine.compaction.rehydration import RehydrationResult, rehydrate
from compact_lsp.engine.compaction.skills import skill_roots, skills_from_read_state
from compact_lsp.engine.conversation.biggest import ContextItem, biggest_items
from compact_lsp.engine.conversation.managed_history import ManagedHistory
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Message, Session, normalize_message, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage, build_usage, reported_input_tokens
from compact_lsp.engine.files.admitted_files import TRANSCRIPT_SOURCES, AdmittedFile, AdmittedFiles
from compact_lsp.engine.files.allowed_roots import work_roots
from compact_lsp.engine.files.change_notices import (
    ChangeNotices,
    SeenFiles,
    SeenText,
    absolute_path,
    attached_body,
    display_path,
)
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.memory import ManagedMemory, make_preserve_read
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.session.journal import eviction_from_record
from compact_lsp.engine.session.record_checks import SkippedRecord, check_record
from compact_lsp.engine.session.session_compactions import CompactionState, SessionCompactions
from compact_lsp.engine.session.session_notes import NotesJob, notes_setup, notes_wire
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.base import Summarizer
from compact_lsp.engine.summarize.session_memory import SessionMemory, SessionMemorySummarizer, SessionNotes


class SessionState:
    """One conversation's state; changed only through ``_apply`` (see the module docstring)."""

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
        created_at: float | None = None,
        source: str | None = None,
    ) -> None:
        self.id = session_id
        self.title = title
        self.source = source
        """Who made the session (``chat``, ``import``, ``api``) as its header says; None in older journals."""
        self.settings = settings
        self.counter = counter
        self.clock = clock
        self.workspace_root = workspace_root
        self.memory = memory or ManagedMemory.from_settings(settings.memory, workspace_root)
        self.created_at = created_at if created_at is not None else clock()
        self.updated_at = self.created_at
        self.revision = 0
        """Counts applied records: a long operation compares it to see whether the session changed meanwhile."""
        self._cleared_markers_tokens = 0
        """Tokens of the cleared-result markers microcompaction left: never clearable, so not a reason to plan."""
        self._ids: set[str] = set()
        self._ids_at = 0
        """The tool_use ids of the history, valid while ``_ids_at == revision`` (appends keep it current)."""
        self.read_state = self._new_read_state()
        self.last_microcompaction: EvictionRecord | None = None
        self.last_assistant_at: float | None = None
        self.session_memory = SessionMemory(*notes_setup(settings))
        """Background notes that make compaction instant (engine/summarize/session_memory.py)."""
        self._base_system = system
        self._history = ManagedHistory(counter)
        self._notices = ChangeNotices()
        self._seen = SeenFiles()
        """What the model saw of each file it read, for the 'changed since you read it' diff."""
        self._compactions = SessionCompactions()
        self.compacting = False
        """A full compaction holds ``compaction_claim()`` (it may still be waiting for a server's lock)."""
        self.denied_paths: set[str] = set()
        """Real paths the user refused the agent; never rehydrated (journalled, so a reload remembers)."""
        self.pins = Pins()
        self.admitted = AdmittedFiles()  # files outside the work roots the user let in (files/admitted_files.py)
        """Pinned tool results (never microcompacted) and files (re-attached first); engine/compaction/pins.py."""

    def _new_read_state(self) -> ReadFileState:
        s = self.settings
        return ReadFileState(
            capacity=s.read_state_capacity,
            clock=self.clock,
            read_tools=s.read_tools,
            write_tools=s.write_tools,
            edit_tools=s.edit_tools,
            cwd=self.workspace_root,
            counter=self.counter,
        )

    # -- reading ----------------------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """The managed history (without pending notices); do not mutate."""
        return self._history.messages

    def view(self) -> list[Message]:
        """Exactly what to send to the model next: history plus pending change notices."""
        return self._notices.folded_into(self.messages)

    @property
    def work_roots(self) -> AllowedRoots:
        """Where the agent may work and rehydration may draw files from: every workspace folder and the added
        directories (``additionalDirectories``), the workspace root first; never anything else."""
        return work_roots(self.workspace_root, self.settings)

    def system_prompt(self) -> str:
        section = self.memory.system_prompt_section()
        return f"{self._base_system}\n\n{section}".strip() if section else self._base_system

    def usage(self) -> ContextUsage:
        by_kind = self._history.ledger.totals
        by_kind["system"] = by_kind.get("system", 0) + self.counter.count_text(self._base_system)
        by_kind["memory"] = by_kind.get("memory", 0) + self.counter.count_text(self.memory.system_prompt_section())
        if self._notices:
            by_kind["attachments"] = by_kind.get("attachments", 0) + self.counter.count_text(self._notices.text())
        return build_usage(by_kind, self.settings, self._history.reported)

    def session(self) -> Session:
        return Session(id=self.id, system=self.system_prompt(), messages=self.view(), title=self.title)

    @property
    def compactions(self) -> list[CompactionState]:
        """The compactions still standing (what undo can revert), newest last; do not mutate."""
        return self._compactions.standing

    @property
    def auto_compact_failures(self) -> int:
        return self._compactions.auto_failures

    @property
    def last_compaction(self) -> dict[str, Any] | None:
        """The newest standing compaction's result."""
        return self._compactions.last

    @property
    def auto_compact_blocked(self) -> bool:
        """The circuit breaker: after N consecutive automatic failures, stop trying until a manual success."""
        return self._compactions.blocked(self.settings.auto_compact.max_consecutive_failures)

    @property
    def admitted_files(self) -> list[AdmittedFile]:
        return self.admitted.listed(self.work_roots)

    @property
    def rehydration_roots(self) -> list[str]:
        """What rehydration may draw files from: the work roots, then each admitted file."""
        return [*self.work_roots.paths, *(f.path for f in self.admitted_files)]

    @property
    def allowed_roots(self) -> AllowedRoots:
        """Where the server may re-read on its own (the file gate): work, memory roots, admitted files (exactly)."""
        roots = self.work_roots.plus(*(root.path for root in self.memory.roots))
        return roots.plus_files(*(f.path for f in self.admitted_files))

    def rehydration(self, kept: list[Message]) -> RehydrationResult:
        """What would be re-attached after a compaction that keeps ``kept`` (disk reads: call off the loop)."""
        return rehydrate(
            read_state=self.read_state,
            kept_messages=kept,
            settings=self.settings.rehydration,
            counter=self.counter,
            workspace_roots=self.rehydration_roots,
            read_text=gated_reader(self.allowed_roots),
            plan=extract_plan(self.messages),
            skills=skills_from_read_state(self.read_state, roots=skill_roots(self.allowed_roots)),
            memory_indexes=self.memory.load_indexes(),
            history=self.messages,
            denied_paths=frozenset(self.denied_paths),
            # the memory index stays in the system prompt; rehydration skips what is already there verbatim
            system_prompt=self.system_prompt(),
            pinned=tuple(self.pins.paths),
        )

    def fixed_tokens(self) -> int:
        """Tokens outside the messages: the system prompt and the memory index."""
        return self.counter.count_text(self._base_system) + self.counter.count_text(self.memory.system_prompt_section())

    def status(self) -> dict[str, Any]:
        self.read_state.refresh()
        return {
            "sessionId": self.id,
            "title": self.title,
            "usage": self.usage().to_wire(),
            "readFiles": self.read_state.status(),
            "lastMicrocompaction": self.last_microcompaction.to_wire() if self.last_microcompaction else None,
            "lastCompaction": self.last_compaction,
            "compacting": self.compacting,
            "sessionNotes": notes_wire(self.session_memory.notes),
            "biggestItems": [item.to_wire() for item in self._biggest_items()],
            "canUndo": bool(self.compactions),
            "messageCount": len(self.messages),
            "pinned": self.pins.to_wire(self.messages, self.workspace_root),
            "admittedFiles": [f.to_wire() for f in self.admitted_files],
        }

    def _biggest_items(self) -> list[ContextItem]:
        history = self._history
        return biggest_items(
            history.messages, history.ledger.message_tokens, self.counter, history.attachment_texts.__contains__
        )

    # -- what a change would be ------------------------------------------------------------------------------

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
        return self._seen.notice_for(record, display_path(path, self.workspace_root), text_now, exists)

    def notes_job(self) -> NotesJob | None:
        """A snapshot for a background notes update when the policy says one is due, else None.

        Take it under the session's lock, run ``job.run()`` without the lock (a model may take seconds), then
        ``commit_notes(job)`` under the lock again: an update that raced a compaction or an undo is dropped, its
        notes describe a history that is gone.
        """
        memory = self.session_memory
        if not self.settings.session_memory.enabled:
            return None
        messages = list(self.messages)
        total = self.usage().total
        if memory.updating or not memory.should_update(total, memory.tool_calls_since(messages)):
            return None
        return NotesJob(memory, messages, total, self._compactions.generation)

    def summarizer_with_notes(self, fallback: Summarizer) -> Summarizer:
        """Compaction from up-to-date notes (no model call), else ``fallback``."""
        return SessionMemorySummarizer(self.session_memory, fallback)

    def plan_microcompaction(self, trigger: Trigger = "forced") -> MicrocompactPlan | None:
        """What microcompaction would clear now, without changing anything."""
        return self._plan_micro(trigger, self.clock())

    def _plan_micro(self, trigger: Trigger, now: float) -> MicrocompactPlan | None:
        return plan_microcompaction(
            self.messages,
            self.settings.microcompact,
            trigger,
            counter=self.counter,
            preserve_read=make_preserve_read(self.memory, cwd=self.workspace_root),
            read_tools=self.settings.read_tools,
            now=now,
            last_assistant_at=self.last_assistant_at,
            pinned=frozenset(self.pins.tool_use_ids),
        )

    # -- applying records ------------------------------------------------------------------------------------

    def _known_tool_use_ids(self) -> set[str]:
        if self._ids_at != self.revision:
            self._ids = {str(b["id"]) for m in self.messages if m["role"] == "assistant" for b in tool_uses(m)}
            self._ids_at = self.revision
        return self._ids

    def follow(self, records: Iterable[dict[str, Any]], first_index: int = 0) -> list[SkippedRecord]:
        """Apply records already in the journal (replay, or another server's appends to a session this one only
        follows); one that cannot be applied is skipped and returned, the rest apply."""
        skipped = []
        for index, record in enumerate(records, start=first_index):
            try:
                self._check_record(record)
                self._apply(record)
            except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
                skipped.append(SkippedRecord(index, str(exc) or type(exc).__name__))
        return skipped

    def _check_record(self, record: dict[str, Any]) -> None:
        standing = self._compactions.standing
        undo_boundary = standing[-1].boundary_id if standing else None
        check_record(record, history_len=len(self.messages), undo_boundary=undo_boundary)

    def _apply(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        at = float(record.get("at", self.clock()))
        if kind == "append":
            new = [normalize_message(m, nesting=False) for m in record["messages"]]
            writers = {*self.settings.write_tools, *self.settings.edit_tools}
            self._notices.discard_written(new, writers, self.workspace_root)  # done before writing, live; replay
            self._history.extend(new)
            if self.source in TRANSCRIPT_SOURCES:
                self.admitted.observe(new, self.workspace_root)
            # observe only what is new: the read-file state remembers the calls still awaiting results
            for read, block in self.read_state.observe(new):
                self._seen.remember_result(read, block)
            if any(m["role"] == "assistant" for m in new):
                self.last_assistant_at = at
            reported = reported_input_tokens(record.get("usage"))
            if reported is not None:
                self._history.reported = reported
        elif kind == "pending":
            if record["text"] is None:
                self._notices.discard(record["path"], self.workspace_root)
            else:
                self._notices.add(record["path"], record["text"])
        elif kind == "notice":
            self._history.attach_to_last(record["text"])
            self._notices.clear()
        elif kind == "rewrite":
            self._history.rewrite((int(change["index"]), change["message"]) for change in record["changes"])
            eviction = eviction_from_record(record["eviction"])
            self.read_state.mark_evicted(c.tool_use_id for c in eviction.cleared)
            self.last_microcompaction = eviction
            self._cleared_markers_tokens += len(eviction.cleared) * self.counter.count_text(CLEARED_TOOL_RESULT)
        elif kind == "read":
            read = self.read_state.record_read(
                record["path"],
                record["content"],
                tool_use_id=record.get("toolUseId"),
                start_line=record.get("startLine"),
                num_lines=record.get("numLines"),
                total_lines=record.get("totalLines"),
            )
            self._seen.remember_served(read, record["content"])
        elif kind == "deny":
            self.denied_paths.add(str(record["path"]))
        elif kind == "title":
            self.title = record["title"]
        elif kind == "pin":
            self.pins.apply(record)
        elif kind == "admit":
            self.admitted.apply(record)
        elif kind == "repair":
            self._history.replace([normalize_message(m) for m in record["messages"]])
        elif kind == "notes":
            self.session_memory.notes = SessionNotes.from_dict(record["notes"])
        elif kind == "compaction":
            self._apply_compaction(record)
            self._cleared_markers_tokens = 0
        elif kind == "undo":
            self._apply_undo(record)
            self._cleared_markers_tokens = 0  # a lower bound stays a lower bound
        elif kind == "header":
            raise ValueError("a second header record in one session journal")
        self.updated_at = max(self.updated_at, at)
        ids_fresh = self._ids_at == self.revision
        self.revision += 1
        if ids_fresh and kind not in ("compaction", "undo"):  # keep the id cache current without a rescan
            if kind == "append":
                self._ids.update(str(b["id"]) for m in record["messages"] for b in tool_uses(normalize_message(m)))
            self._ids_at = self.revision

    def _apply_compaction(self, record: dict[str, Any]) -> None:
        compacted = self._compactions.push(record, self._history.messages)
        self._history.replace(compacted.messages, compacted.attachment_texts)
        self.read_state.mark_all_out_of_history()
        for path, text in compacted.whole_files:
            read = self.read_state.record_read(absolute_path(path, self.workspace_root), text)
            # fresh means fresh: what the model now has is the re-attached text, so later notices diff against it
            self._seen.put(read.realpath, SeenText(attached_body(text)))
        for path in compacted.partial_files:
            self._seen.discard(self.read_state.resolve(absolute_path(path, self.workspace_root))[1])
        for path in [p for p, _ in compacted.whole_files] + compacted.partial_files:
            # a pending "changed on disk" notice for a file just re-attached would re-add the stale text as "-" lines
            self._notices.discard(absolute_path(path, self.workspace_root), self.workspace_root)
        self.read_state.observe(compacted.messages)
        # the notes now stand for the summary message; later notes build on it
        self.session_memory.rebase(1, compacted.tokens_after)

    def _apply_undo(self, record: dict[str, Any]) -> None:
        self._history.replace(self._compactions.pop(self._history.messages))
        self.session_memory.notes = None
        # Reads stay marked as out of history: the conservative side, the model re-reads rather than trusting
        # a "file unchanged" shortcut for bytes it may not have.
