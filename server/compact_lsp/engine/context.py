"""A managed conversation: the one object the server, the agent and the CLI drive.

``ContextSession`` owns the current view of the messages, their token ledger and the read-file state. Every change
is first written to the injected ``Journal`` as a record, then applied: the journal on disk is the append-only
transcript, and ``ContextSession.replay`` rebuilds the same state from it. A failed write changes nothing. The
record types and what each carries are listed in engine/journal.py.

The messages and their token ledger change together in ``ManagedHistory`` (engine/managed_history.py). Full
compactions and their undo are kept by ``SessionCompactions`` (engine/session_compactions.py). What the model saw
of each file, and the change notices pending for the next view, are ``SeenFiles`` and ``ChangeNotices``
(engine/change_notices.py): the server reads a changed file off the loop and asks ``notice_for``. Background notes
run as a ``NotesJob`` (engine/session_notes.py). The session decides, journals, then applies what they change.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .allowed_roots import work_roots
from .biggest import ContextItem, biggest_items
from .change_notices import (
    ChangeNotices,
    SeenFiles,
    SeenText,
    absolute_path,
    attached_body,
    change_notice,
    display_path,
)
from .compaction import CompactionOutcome, ProgressFn
from .eviction import EvictionRecord, Trigger
from .file_gate import AllowedRoots, gated_reader
from .journal import (
    Journal,
    NullJournal,
    compaction_record,
    eviction_from_record,
    header_record,
    pending_record,
    rewrite_record,
)
from .managed_history import ManagedHistory
from .memory import ManagedMemory, make_preserve_read
from .messages import (
    CLEARED_TOOL_RESULT,
    Message,
    MessageShapeError,
    Session,
    check_encodable,
    check_nesting,
    join_messages,
    normalize_message,
    tool_uses,
)
from .microcompact import idle_due, plan_microcompaction
from .microcompact_plan import MicrocompactPlan, apply_plan
from .plan_state import extract_plan
from .read_record import content_hash
from .read_state import ReadFileState
from .record_checks import SkippedRecord, check_record
from .rehydration import RehydrationResult, rehydrate
from .session_compactions import CompactionState, SessionCompactions
from .session_notes import NotesJob, notes_setup, notes_wire
from .settings import EngineSettings
from .skills import skill_roots, skills_from_read_state
from .summarize.base import Summarizer
from .summarize.session_memory import SessionMemory, SessionMemorySummarizer, SessionNotes
from .tokens import TokenCounter
from .usage import ContextUsage, build_usage, reported_input_tokens
from .validate import Problem, repair, validate

log = logging.getLogger(__name__)


class ConversationError(ValueError):
    """Messages that would make the conversation invalid for the API; the text lists the problems."""


@dataclass(frozen=True)
class AppendOutcome:
    usage: ContextUsage
    microcompaction: EvictionRecord | None = None
    compaction_due: bool = False


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
        self.title = title
        self.source = source
        """Who made the session (``chat``, ``import``, ``api``) as its header says; None in older journals."""
        self.settings = settings
        self.counter = counter
        self.clock = clock
        self.workspace_root = workspace_root
        self.memory = memory or ManagedMemory.from_settings(settings.memory, workspace_root)
        self.journal: Journal = journal or NullJournal()
        self.created_at = created_at if created_at is not None else clock()
        self.updated_at = self.created_at
        self.revision = 0
        self._cleared_markers_tokens = 0
        """Tokens of the cleared-result markers microcompaction left: never clearable, so not a reason to plan."""
        self._ids: set[str] = set()
        self._ids_at = 0
        """The tool_use ids of the history, valid while ``_ids_at == revision`` (appends keep it current)."""
        """Counts applied records: a long operation compares it to see whether the session changed meanwhile."""
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
        self.denied_paths: set[str] = set()
        """Real paths the user refused the agent; never rehydrated (journalled, so a reload remembers)."""
        if write_header:
            self.journal.write(
                header_record(session_id, title=title, system=system, created_at=self.created_at, source=source)
            )

    # -- construction -----------------------------------------------------------------------------------------

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
        skipped and passed to ``on_skipped`` (engine/record_checks.py); the rest load."""
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
        due = self.settings.auto_compact.enabled and usage.total >= usage.auto_compact_threshold
        if due:
            # microcompaction first, when clearing old tool results alone gets under the threshold: no summary
            forced = self._plan_micro("forced", now)
            if forced is not None and forced.tokens_after + self.fixed_tokens() < usage.auto_compact_threshold:
                eviction = self._commit_micro(forced, now)
                usage, due = self.usage(), False
        return AppendOutcome(usage=usage, microcompaction=eviction, compaction_due=due)

    def _check_append(self, new: list[Message]) -> None:
        """Would ``new`` keep the conversation valid? The history already is, so only its last two messages (a
        tool call and its results) and the new ones are checked, plus the new tool_use ids against all known ids:
        the cost follows the append, not the session."""
        history = self.messages
        window = self._notices.folded_into(history[-2:])
        candidate = join_messages(window, new)
        problems = validate(candidate)
        if len(history) > len(window):
            # a window cut from a longer history may start mid-conversation; that is not the new messages' doing
            problems = [
                p for p in problems if p.message_index > 0 or p.code not in ("role-order", "orphan-tool-result")
            ]
        known = self._known_tool_use_ids()
        base = len(candidate) - len(new)
        for offset, message in enumerate(new):
            for block in tool_uses(message):
                if block["id"] in known:
                    problems.append(
                        Problem(
                            base + offset, None, "duplicate-tool-use-id", f"tool_use id {block['id']!r} is used twice"
                        )
                    )
        if problems:
            listed = "; ".join(_describe(p, base) for p in problems[:5])
            raise ConversationError(f"these messages would make the conversation invalid: {listed}")

    def _known_tool_use_ids(self) -> set[str]:
        if self._ids_at != self.revision:
            self._ids = {str(b["id"]) for m in self.messages if m["role"] == "assistant" for b in tool_uses(m)}
            self._ids_at = self.revision
        return self._ids

    def plan_microcompaction(self, trigger: Trigger = "forced") -> MicrocompactPlan | None:
        """What microcompaction would clear now, without changing anything."""
        return self._plan_micro(trigger, self.clock())

    def microcompact(self, trigger: Trigger = "forced") -> EvictionRecord | None:
        """Run microcompaction now; None when nothing would be cleared."""
        now = self.clock()
        plan = self._plan_micro(trigger, now)
        return self._commit_micro(plan, now) if plan is not None else None

    def deny(self, real_path: str) -> None:
        """The user refused the agent this path: it never comes back through rehydration."""
        if real_path not in self.denied_paths:
            self._write_and_apply({"type": "deny", "path": real_path, "at": self.clock()})

    def discard_change_notice(self, path: str) -> None:
        """Forget a pending notice: the change was the agent's own (its write or edit of that path)."""
        if self._notices.has(path, self.workspace_root):
            self._write_and_apply(pending_record(path, None, at=self.clock()))

    def add_change_notice(self, path: str, text: str) -> None:
        """A file the model saw changed on disk: tell it on the next view (one bounded notice per path). Journalled
        as it arises, so a restart before the next append still tells the model."""
        self._write_and_apply(pending_record(path, text, at=self.clock()))

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
        display = display_path(path, self.workspace_root)
        seen = self._seen.get(record.realpath)
        if not exists:
            return change_notice(display, None, None)
        if text_now is None:
            return change_notice(display, None, "")
        if seen is not None:
            return change_notice(display, seen.text, seen.same_range_of(text_now))
        if record.content_hash == content_hash(text_now):
            return None
        return change_notice(display, None, text_now)

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

    def summarizer_with_notes(self, fallback: Summarizer) -> Summarizer:
        """Compaction from up-to-date notes (no model call), else ``fallback``."""
        return SessionMemorySummarizer(self.session_memory, fallback)

    # -- full compaction ------------------------------------------------------------------------------------

    async def compact(
        self,
        summarizer: Summarizer,
        *,
        instructions: str | None = None,
        trigger: str = "manual",
        progress: ProgressFn | None = None,
        cancel: asyncio.Event | None = None,
    ) -> CompactionOutcome:
        """Replace history by a summary plus rehydrated essentials; a failure changes nothing."""
        return await self._compactions.run(
            self, summarizer, instructions=instructions, trigger=trigger, progress=progress, cancel=cancel
        )

    @property
    def compactions(self) -> list[CompactionState]:
        """The compactions still standing (what undo can revert), newest last; do not mutate."""
        return self._compactions.standing

    @property
    def compacting(self) -> bool:
        return self._compactions.running

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
    def allowed_roots(self) -> AllowedRoots:
        """Where the server may re-read files on its own (the file gate): the work roots and the memory roots."""
        return self.work_roots.plus(*(root.path for root in self.memory.roots))

    def rehydration(self, kept: list[Message]) -> RehydrationResult:
        """What would be re-attached after a compaction that keeps ``kept`` (disk reads: call off the loop)."""
        return rehydrate(
            read_state=self.read_state,
            kept_messages=kept,
            settings=self.settings.rehydration,
            counter=self.counter,
            workspace_roots=list(self.work_roots.paths),
            read_text=gated_reader(self.allowed_roots),
            plan=extract_plan(self.messages),
            skills=skills_from_read_state(self.read_state, roots=skill_roots(self.allowed_roots)),
            memory_indexes=self.memory.load_indexes(),
            history=self.messages,
            denied_paths=frozenset(self.denied_paths),
            # the memory index stays in the system prompt; rehydration skips what is already there verbatim
            system_prompt=self.system_prompt(),
        )

    def fixed_tokens(self) -> int:
        """Tokens outside the messages: the system prompt and the memory index."""
        return self.counter.count_text(self._base_system) + self.counter.count_text(self.memory.system_prompt_section())

    def commit_compaction(self, outcome: CompactionOutcome) -> None:
        self._write_and_apply(compaction_record(outcome))

    def undo(self) -> dict[str, Any]:
        """Restore the exact view from before the last compaction, keeping messages added since (if still valid)."""
        state = self._compactions.undo_target(self.messages)
        self._write_and_apply({"type": "undo", "boundaryId": state.boundary_id, "at": self.clock()})
        return {"restored": True, "boundaryId": state.boundary_id, "tokensAfter": self.usage().total}

    # -- status -----------------------------------------------------------------------------------------------

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
        }

    # -- internals --------------------------------------------------------------------------------------------

    def _biggest_items(self) -> list[ContextItem]:
        history = self._history
        return biggest_items(
            history.messages, history.ledger.message_tokens, self.counter, history.attachment_texts.__contains__
        )

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
        )

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


def _describe(problem: Any, base: int) -> str:
    index = getattr(problem, "message_index", None)
    where = f"new message {index - base}" if isinstance(index, int) and index >= base else f"message {index}"
    return f"{where}: {getattr(problem, 'message', problem)}"
