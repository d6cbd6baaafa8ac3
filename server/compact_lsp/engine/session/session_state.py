"""What a session is now, rebuilt from its journal records: the state ``ContextSession`` changes.

``SessionState`` holds the history and its token ledger (``ManagedHistory``), the read-file state, what the model
saw of each file and the pending change notices (engine/files/change_notices.py), the standing compactions
(engine/session/session_compactions.py), the session notes, the pins, the denied paths and the title. It changes
only by ``apply(record)``, the one place each journal record type (engine/session/journal.py) takes effect, so a
reload that replays the records rebuilds the same state. Deciding what to change, journalling it first and
answering questions about the result is ``ContextSession``'s part (engine/session/context_session.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from compact_lsp.engine.compaction.eviction import EvictionRecord
from compact_lsp.engine.compaction.pins import Pins
from compact_lsp.engine.conversation.managed_history import ManagedHistory
from compact_lsp.engine.conversation.messages import CLEARED_TOOL_RESULT, Message, normalize_message, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import reported_input_tokens
from compact_lsp.engine.files.admitted_files import OWN_SOURCES, AdmittedFiles
from compact_lsp.engine.files.change_notices import ChangeNotices, SeenFiles, SeenText, absolute_path, attached_body
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.journal import eviction_from_record
from compact_lsp.engine.session.record_checks import SkippedRecord, check_record
from compact_lsp.engine.session.session_compactions import SessionCompactions
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.engine.summarize.session_notes import NotesKeeper, SessionNotes

SKIPPABLE = (ValueError, KeyError, TypeError, IndexError, AttributeError)
"""What a record that cannot be applied raises; replay skips it and the rest apply."""


class SessionState:
    """One conversation's state; changed only through ``apply`` (see the module docstring)."""

    def __init__(
        self,
        *,
        title: str,
        updated_at: float,
        counter: TokenCounter,
        workspace_root: str | None,
        read_state: ReadFileState,
        notes_keeper: NotesKeeper,
        clock: Callable[[], float],
        source: str | None,
    ) -> None:
        self.title = title
        self.updated_at = updated_at
        self.revision = 0
        """Counts applied records: a long operation compares it to see whether the session changed meanwhile."""
        self.read_state = read_state
        self.notes_keeper = notes_keeper
        """Background notes that make compaction instant (engine/summarize/session_notes.py)."""
        self.last_microcompaction: EvictionRecord | None = None
        self.last_assistant_at: float | None = None
        self.history = ManagedHistory(counter)
        self.notices = ChangeNotices()
        self.seen = SeenFiles()
        """What the model saw of each file it read, for the 'changed since you read it' diff."""
        self.working_set = WorkingSet(cwd=workspace_root or "")
        """What the agent changed, read and ran this session, over every append (compactions do not reset it): the
        ledger's facts (engine/files/working_set.py)."""
        self.compactions = SessionCompactions()
        self.denied_paths: set[str] = set()
        """Real paths the user refused the agent; never rehydrated (journalled, so a reload remembers)."""
        self.pins = Pins()
        """Pinned tool results (never microcompacted) and files (re-attached first); engine/compaction/pins.py."""
        self.admitted = AdmittedFiles()
        """Files outside the work roots the user let in (engine/files/admitted_files.py)."""
        self.cleared_markers_tokens = 0
        """Tokens of the cleared-result markers microcompaction left: never clearable, so not a reason to plan."""
        self._counter = counter
        self._clock = clock
        self._transcript = source not in OWN_SOURCES
        """A history written elsewhere (admitted_files.py ``OWN_SOURCES``): its successful file uses propose their
        files."""
        self._workspace_root = workspace_root
        self._ids: set[str] = set()
        self._ids_at = 0
        """The tool_use ids of the history, valid while ``_ids_at == revision`` (appends keep it current)."""

    @property
    def messages(self) -> list[Message]:
        """The managed history (without pending notices); do not mutate."""
        return self.history.messages

    def known_tool_use_ids(self) -> set[str]:
        if self._ids_at != self.revision:
            self._ids = {str(b["id"]) for m in self.messages if m["role"] == "assistant" for b in tool_uses(m)}
            self._ids_at = self.revision
        return self._ids

    def check(self, record: dict[str, Any]) -> None:
        """Raise what replay would raise for ``record`` (engine/session/record_checks.py)."""
        standing = self.compactions.standing
        undo_boundary = standing[-1].boundary_id if standing else None
        check_record(record, history_len=len(self.messages), undo_boundary=undo_boundary)

    def follow(
        self, records: Iterable[dict[str, Any]], settings: EngineSettings, first_index: int = 0
    ) -> list[SkippedRecord]:
        """Apply records already in the journal (replay, or another server's appends to a session this one only
        follows); one that cannot be applied is skipped and returned, the rest apply."""
        skipped = []
        for index, record in enumerate(records, start=first_index):
            try:
                self.check(record)
                self.apply(record, settings)
            except SKIPPABLE as exc:
                skipped.append(SkippedRecord(index, str(exc) or type(exc).__name__))
        return skipped

    def apply(self, record: dict[str, Any], settings: EngineSettings) -> None:
        """The one place a journal record takes effect (``settings`` names the write and edit tools)."""
        kind = record.get("type")
        at = float(record.get("at", self._clock()))
        if kind == "append":
            self._apply_append(record, settings, at)
        elif kind == "pending":
            if record["text"] is None:
                self.notices.discard(record["path"], self._workspace_root)
            else:
                self.notices.add(record["path"], record["text"])
        elif kind == "notice":
            self.history.attach_to_last(record["text"])
            self.notices.clear()
        elif kind == "rewrite":
            self._apply_rewrite(record)
        elif kind == "read":
            self._apply_read(record)
        elif kind == "deny":
            self.denied_paths.add(str(record["path"]))
        elif kind == "title":
            self.title = record["title"]
        elif kind == "pin":
            self.pins.apply(record)
        elif kind == "admit":
            self.admitted.apply(record)
        elif kind == "repair":
            self.history.replace([normalize_message(m) for m in record["messages"]])
        elif kind == "notes":
            self.notes_keeper.notes = SessionNotes.from_dict(record["notes"])
        elif kind == "compaction":
            self._apply_compaction(record)
        elif kind == "undo":
            self._apply_undo()
        elif kind == "header":
            raise ValueError("a second header record in one session journal")
        self.updated_at = max(self.updated_at, at)
        self._count(record)

    def _count(self, record: dict[str, Any]) -> None:
        """One more record applied; the tool_use id cache follows an append without a rescan."""
        kind = record.get("type")
        ids_fresh = self._ids_at == self.revision
        self.revision += 1
        if ids_fresh and kind not in ("compaction", "undo"):
            if kind == "append":
                self._ids.update(str(b["id"]) for m in record["messages"] for b in tool_uses(normalize_message(m)))
            self._ids_at = self.revision

    def _apply_append(self, record: dict[str, Any], settings: EngineSettings, at: float) -> None:
        new = [normalize_message(m, nesting=False) for m in record["messages"]]
        writers = {*settings.write_tools, *settings.edit_tools}
        self.notices.discard_written(new, writers, self._workspace_root)  # done before writing, live; replay
        self.history.extend(new)
        if self._transcript:
            self.admitted.observe(new, self._workspace_root)
        # observe only what is new: the read-file state remembers the calls still awaiting results
        for read, block in self.read_state.observe(new):
            self.seen.remember_result(read, block)
        for work in self.working_set.observe(new):
            if work.copy is not None:  # the agent's own change: what it knows of the file now, not news later
                self.seen.put(self.read_state.resolve(work.path)[1], SeenText(work.copy))
        if any(m["role"] == "assistant" for m in new):
            self.last_assistant_at = at
        reported = reported_input_tokens(record.get("usage"))
        if reported is not None:
            self.history.reported = reported

    def _apply_rewrite(self, record: dict[str, Any]) -> None:
        self.history.rewrite((int(change["index"]), change["message"]) for change in record["changes"])
        eviction = eviction_from_record(record["eviction"])
        self.read_state.mark_evicted(c.tool_use_id for c in eviction.cleared)
        self.last_microcompaction = eviction
        self.cleared_markers_tokens += len(eviction.cleared) * self._counter.count_text(CLEARED_TOOL_RESULT)

    def _apply_read(self, record: dict[str, Any]) -> None:
        read = self.read_state.record_read(
            record["path"],
            record["content"],
            tool_use_id=record.get("toolUseId"),
            start_line=record.get("startLine"),
            num_lines=record.get("numLines"),
            total_lines=record.get("totalLines"),
        )
        self.seen.remember_served(read, record["content"])

    def _apply_compaction(self, record: dict[str, Any]) -> None:
        root = self._workspace_root
        compacted = self.compactions.push(record, self.history.messages)
        self.history.replace(compacted.messages, compacted.attachment_texts)
        self.read_state.mark_all_out_of_history()
        for path, text in compacted.whole_files:
            read = self.read_state.record_read(absolute_path(path, root), text)
            # fresh means fresh: what the model now has is the re-attached text, so later notices diff against it
            self.seen.put(read.realpath, SeenText(attached_body(text)))
        for path in compacted.partial_files:
            self.seen.discard(self.read_state.resolve(absolute_path(path, root))[1])
        for path in [p for p, _ in compacted.whole_files] + compacted.partial_files:
            # a pending "changed on disk" notice for a file just re-attached would re-add the stale text as "-" lines
            self.notices.discard(absolute_path(path, root), root)
        self.read_state.observe(compacted.messages)
        # the notes now stand for the summary message; later notes build on it
        self.notes_keeper.rebase(1, compacted.tokens_after)
        self.cleared_markers_tokens = 0

    def _apply_undo(self) -> None:
        self.history.replace(self.compactions.pop(self.history.messages))
        self.notes_keeper.notes = None
        self.cleared_markers_tokens = 0  # a lower bound stays a lower bound
        # Reads stay marked as out of history: the conservative side, the model re-reads rather than trusting
        # a "file unchanged" shortcut for bytes it may not have.
