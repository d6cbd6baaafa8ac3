"""Claude Code's live transcripts as read-only sessions: read what was appended, keep the session in step.

``LiveTranscript`` (agents/claude_code/transcript_window.py) reads what was appended, or the window since the last
compaction boundary when the file is new, replaced or compacted. ``FollowedSession`` keeps what the model sees
now, and what a line appended costs follows the line, not the transcript:

- the messages that can no longer change (everything before the last assistant message: an assistant message
  grows while its response is logged block by block, and the user message after it while results arrive) are
  appended to a ``ContextSession`` that only this module writes to, and counted once;
- the open tail (that assistant message and what follows) is kept with the records it came from; appended
  records are imported with it alone, by the importer (``import_records``), so the importer's rules apply as
  they are;
- a new or replaced transcript's window is imported the same way, a chunk of records at a time, each extending
  what came before, so only one chunk's records are held beside the session (what following costs in memory is
  the context the model sees, not its log);
- a record that hangs off the history before the tail (a rewind) cannot simply extend it: then the window is
  read again from the file and imported whole (``rebuilds`` counts it).

Everything that would change the context from outside is refused by its journal (``OwnedByClaudeCode``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.agents.claude_code.auto_compaction import claude_code_auto_compaction, recorded_version
from compact_lsp.agents.claude_code.chat import claude_code_chat_entries, claude_code_compactions
from compact_lsp.agents.claude_code.transcript_window import LiveTranscript
from compact_lsp.agents.claude_code.window_marks import LoggedAt, SeenUuids
from compact_lsp.agents.followed_window import AgentCompaction, FollowedJournal, FollowedTranscript, OpenTail
from compact_lsp.engine.claude_code.log_lines import LogRecord
from compact_lsp.engine.claude_code.models import reported_window, window_by_name
from compact_lsp.engine.claude_code.transcript_log import ImportedSession, MessageOrigin, import_records
from compact_lsp.engine.conversation.next_compaction import AutoCompaction
from compact_lsp.engine.session.context_session import ContextSession, ConversationError
from compact_lsp.engine.setting_ranges import setting
from compact_lsp.store.session_lock import SessionBusy

HEAD_STEPS = (8 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024)
"""How much of a compacted transcript's start is parsed for its title, in turn, until one is found: Claude Code's
summaries and the first request are its first lines, and a head parsed and imported whole costs ~7x its bytes."""
ID_PREFIX = "claude-"


@dataclass(frozen=True)
class ClaudeCodeSettings:
    """Following the workspace's Claude Code transcripts (docs/claude-code.md)."""

    SECTION = "claudeCode"
    follow: bool | None = field(
        default=None,
        metadata=setting(
            "Follow the workspace's Claude Code transcripts as read-only sessions, read from where they stopped as "
            "Claude Code appends (unset: when its project directory exists or once it appears).",
            more="A followed session is what the model sees now (since Claude Code's last compaction); "
            "`docs/claude-code.md`.",
            not_in_vscode="the server follows when the project directory exists",
        ),
    )
    projects_dir: str | None = field(
        default=None,
        metadata=setting(
            "Claude Code's projects directory (unset: `~/.claude/projects`).",
            kind="path",
            not_in_vscode="Claude Code's own folder, found by the server",
        ),
    )


def projects_base(projects_dir: str | None) -> Path:
    """Where Claude Code keeps its project folders."""
    return Path(os.path.expanduser(projects_dir or "~/.claude/projects"))


def project_name(workspace_root: str) -> str:
    """Claude Code's name for a project folder: the path with every character but an ASCII letter or digit as
    ``-``, counted as JavaScript counts them (a character beyond the BMP is two UTF-16 units, so two ``-``)."""
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" * (1 + (ord(ch) > 0xFFFF)) for ch in workspace_root)


def project_directory(projects_dir: str | None, workspace_root: str) -> Path:
    """Claude Code's folder for a workspace (which may not exist yet)."""
    return projects_base(projects_dir) / project_name(workspace_root)


def session_id_for(transcript: Path) -> str:
    return ID_PREFIX + transcript.stem


class OwnedByClaudeCode(SessionBusy):
    """A change to a followed Claude Code session: Claude Code owns its context."""

    def __init__(self, session: str) -> None:
        RuntimeError.__init__(
            self,
            f"session {session} is Claude Code's live transcript, followed read-only: Claude Code owns its context, "
            "so run /compact in Claude Code (our hook adds what it leaves out: compact-lsp claude-code install-hook),"
            " or import it (compact/importSession) to continue it here",
        )
        self.session = session
        self.owner = {"agent": "Claude Code"}


class FollowedSession(FollowedTranscript):
    """A ``ContextSession`` kept in step with a ``LiveTranscript`` (see the module doc)."""

    def auto_compaction(self, window: int | None) -> AutoCompaction | None:
        workspace = self.session.workspace_root
        return claude_code_auto_compaction(window, workspace, self.path, os.environ, self._claude_version)

    def recorded_compactions(self) -> list[AgentCompaction]:
        return claude_code_compactions(self.path)

    def chat_entries(self) -> list[dict[str, Any]] | None:
        return claude_code_chat_entries(self.path)

    def __init__(self, transcript: LiveTranscript, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = transcript
        self.id = session_id_for(transcript.path)
        self._make = make_session
        self._refused = OwnedByClaudeCode
        self.journal = FollowedJournal(self.id, OwnedByClaudeCode)
        self.title = ""
        self.cwd: str | None = None
        self.rebuilds = 0
        """How often the window was imported again because an append could not simply extend it."""
        self.problems = 0
        """Lines that could not be parsed, so far."""
        self.version = 0
        """Counts the updates that changed the session (what a published status describes)."""
        self.session = self._new_session("")
        self._stamps = LoggedAt()
        """When each committed message was logged (ISO, from the transcript), packed (window_marks.py)."""
        self._open = OpenTail()
        self._seen = SeenUuids()
        """The uuids of the window's records (a record logged twice counts once), packed likewise."""
        self._last_uuid: str | None = None
        self._usage: dict[str, Any] | None = None
        self._model: str | None = None
        self._window_reported: int | None = None
        """The last window a ``cost-state`` record reported for the model (``context_window``)."""
        self._claude_version: str | None = None
        """The Claude Code version the window's records last named: whose automatic compaction rule holds."""
        self._head: tuple[tuple[int, int] | None, str | None] | None = None
        """The title at the file's start, and the file (its inode) it was read from."""

    # -- what the model sees now ----------------------------------------------------------------------------

    @property
    def timestamps(self) -> list[str | None]:
        return [*self._stamps, *self._open.stamps]

    def _reported(self) -> dict[str, Any] | None:
        return self._usage

    def context_window(self) -> int | None:
        """The window Claude Code works with, decided as ``inspect`` decides it (engine/claude_code/models.py):
        the last one its ``cost-state`` records report for the model, else the model's by name."""
        return self._window_reported or window_by_name(self._model)

    def _note_window(self, imported: ImportedSession, records: list[LogRecord]) -> None:
        self._model = imported.model or self._model
        self._window_reported = reported_window((r.data for r in records), self._model) or self._window_reported
        self._claude_version = recorded_version(r.data for r in records) or self._claude_version

    # -- keeping in step -----------------------------------------------------------------------------------

    def update(self) -> bool:
        """Read what Claude Code appended and apply it; True when the session changed."""
        delta = self.transcript.read_new()
        if delta is None:
            return False
        self.version += 1
        self.problems += len(delta.problems)
        if delta.unread:
            self._read_window()
        elif delta.reset:
            self._rebuild(delta.records, self._head_title())
        elif not self._extend(delta.records):
            self._reimport()
        return True

    def _read_window(self) -> None:
        """A new or replaced file: import the window a chunk at a time, each chunk extending what came before as
        appended lines do, so only one chunk's records are held at once (not the whole window's)."""
        head_title = self._head_title()  # before the window's records are held
        started = False
        for records, problems in self.transcript.window_chunks():
            self.problems += len(problems)
            if not started:
                self._rebuild(records, head_title)
                started = True
            elif not self._extend(records):
                self._reimport()
                return
            del records  # else this chunk's records are held while the next chunk's are parsed
        if not started:
            self._rebuild([], head_title)

    def _reimport(self) -> None:
        self.rebuilds += 1
        records, _ = self.transcript.read_window()
        self._rebuild(records, self._head_title())

    def _head_title(self) -> str | None:
        """Where the session began, when the window starts at a compaction: the title of the file's first lines,
        read from a small head first (the first request is near the top), once per file."""
        if self.transcript.window.offset == 0:
            return None
        if self._head is not None and self._head[0] == self.transcript.inode:
            return self._head[1]
        title = None
        for limit in HEAD_STEPS:
            head = self.transcript.head_records(limit)
            title = import_records(self.transcript.path, head, []).session.title or None if head else None
            if title or limit >= self.transcript.window.offset:
                break
        self._head = (self.transcript.inode, title)
        return title

    def _rebuild(self, records: list[LogRecord], head_title: str | None) -> None:
        """Import these records of the window afresh (a new or replaced file, a compaction, or a fork in its
        history); ``head_title``: the session's title where it began, when the window starts at a compaction."""
        imported = import_records(self.transcript.path, records, [])
        title = head_title or imported.session.title
        self.title, self.cwd = title, imported.cwd or self.cwd
        self.session = self._new_session(title)
        self._seen = SeenUuids(r.uuid for r in records if r.uuid is not None)
        self._last_uuid = next((r.uuid for r in reversed(records) if r.uuid is not None), None)
        self._stamps, self._usage = LoggedAt(), None
        self._open = OpenTail()
        self._settle(imported, records, leading=False)

    def _extend(self, new: list[LogRecord]) -> bool:
        """Apply appended records by importing only the open tail with them; False when they fork the history
        before the tail (a rewind), which only a fresh import of the window gets right."""
        if self._open.forked:
            return False
        tail_uuids = self._open.uuids
        added = []
        for record in new:
            uuid = record.uuid
            if uuid is not None:
                if uuid in self._seen:
                    continue  # logged twice: the first stands
                if record.parent is not None and record.parent != self._last_uuid and record.parent not in tail_uuids:
                    return False
                self._seen.add(uuid)
                tail_uuids.add(uuid)
                self._last_uuid = uuid
            added.append(record)
        if not added:
            return True
        records = [*self._open.records, *added]
        try:
            imported = import_records(self.transcript.path, _anchored(records), [])
            if not self.title and imported.session.title:
                self._retitle(imported.session.title)
            self._settle(imported, records, leading=bool(self._open.records))
        except ConversationError:
            return False
        return True

    def _retitle(self, title: str) -> None:
        self.title = title
        with self.journal.updating(), contextlib.suppress(ValueError):
            self.session.rename(title)

    def _settle(self, imported: ImportedSession, records: list[LogRecord], *, leading: bool) -> None:
        """Commit the messages that can no longer change (all before the last assistant message); keep the rest,
        with the records they came from, open. ``leading``: the records start with the open tail's assistant
        message, before which the importer put a placeholder."""
        messages, origins, stamps = imported.session.messages, imported.origins, imported.timestamps
        if leading and messages and messages[0]["role"] == "user" and origins[0] is None:
            messages, origins, stamps = messages[1:], origins[1:], stamps[1:]
        cut = next(
            (i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant" and origins[i]),
            0,
        )
        self._note_window(imported, records)
        usage = _last_usage(origins)
        if usage is not None:
            self._usage = usage
        if cut:
            with self.journal.updating():
                self.session.append(list(messages[:cut]), reported_usage=self._usage)
            self._stamps.extend(stamps[:cut])
        origin = origins[cut] if cut < len(origins) else None
        first = origin.line_nos[0] if origin is not None else 0
        # what the importer left out (another branch) stays out: only a record hanging off the tail may join it; a
        # record on the branch stays in though its message was dropped (an empty first block of a message still
        # being logged): the next record hangs off it
        selected = {r.uuid for r in imported.context_records}
        kept = [
            r for r in records if r.line_no >= first and (r.message is None or r.uuid is None or r.uuid in selected)
        ]
        self._open = OpenTail(kept, messages[cut:], stamps[cut:], self.session.counter)


ANCHOR_UUID = "compact-lsp:open-tail"


def _anchored(records: list[LogRecord]) -> list[LogRecord]:
    """The open tail's records as the importer should see them: what hangs off the committed history hangs off
    one stand-in record for it, so the importer keeps it on the branch as it would with the whole window."""
    inside = {r.uuid for r in records if r.uuid is not None}
    anchored = [LogRecord(0, {"type": "compact-lsp-anchor", "uuid": ANCHOR_UUID})]
    for record in records:
        if record.uuid is not None and record.parent is not None and record.parent not in inside:
            record = LogRecord(record.line_no, {**record.data, "parentUuid": ANCHOR_UUID}, record.message)
        anchored.append(record)
    return anchored


def _last_usage(origins: list[MessageOrigin | None]) -> dict[str, Any] | None:
    """The API's own usage of the last response: the prompt size Claude Code last sent."""
    for origin in reversed(origins):
        if origin is not None and origin.usage:
            return dict(origin.usage)
    return None


def transcripts_in(directory: Path) -> list[Path]:
    """A project's transcripts, newest first (sub-agent logs are part of their session, not sessions)."""
    try:
        found = [p for p in directory.glob("*.jsonl") if not p.name.startswith("agent-")]
    except OSError:
        return []
    return sorted(found, key=lambda p: p.stat().st_mtime if p.exists() else 0, reverse=True)
