"""Claude Code's live transcripts as read-only sessions: read what was appended, keep the session in step.

``LiveTranscript`` reads a transcript from where it stopped last time (whole lines only: a torn last line waits
for its end), starts again from the top when the file was replaced or shortened, and keeps the parsed records.
``FollowedSession`` turns them into a ``ContextSession`` that only this module writes to: new messages are
appended (only they are counted); when the conversation changed otherwise (an assistant message that grew a
block, a rewind) the session is rebuilt, which costs little because token counts are cached per block.
Everything that would change the context from outside is refused by its journal (``OwnedByClaudeCode``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.log_lines import LineProblem, LogRecord, parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import MessageOrigin, import_records
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.store.session_lock import SessionBusy

SOURCE = "claude-code"
ID_PREFIX = "claude-"
MAX_TRANSCRIPT_BYTES = 512 * 1024 * 1024
"""A transcript bigger than this is not followed (Claude Code's own grow to tens of MB at most)."""


@dataclass(frozen=True)
class ClaudeCodeSettings:
    """``claudeCode.*``: following the workspace's Claude Code transcripts."""

    SECTION = "claudeCode"
    follow: bool | None = None
    """None: follow when the project directory exists."""
    projects_dir: str | None = None
    """Where Claude Code keeps its projects (default ``~/.claude/projects``)."""


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


class FollowedJournal:
    """The journal of a followed session: refuses every write except the follower's own updates."""

    def __init__(self, session: str) -> None:
        self.session = session
        self._updating = False

    @contextlib.contextmanager
    def updating(self) -> Iterator[None]:
        self._updating = True
        try:
            yield
        finally:
            self._updating = False

    def write(self, record: dict[str, Any]) -> None:
        if not self._updating:
            raise OwnedByClaudeCode(self.session)


class LiveTranscript:
    """One transcript followed as it grows (see the module doc)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: tuple[int, int] | None = None
        self.records: list[LogRecord] = []
        self.problems: list[LineProblem] = []
        self._partial = b""
        self._next_line = 1
        self.bytes_read = 0
        """Every byte read so far (what following costs; a rewrite reads the file again)."""

    def _reset(self) -> None:
        self.offset, self._partial, self._next_line = 0, b"", 1
        self.records, self.problems = [], []

    def read_new(self) -> bool:
        """Read what was appended; True when records arrived or the file was replaced."""
        with open_regular(str(self.path)) as f:
            st = os.fstat(f.fileno())
            inode = (st.st_dev, st.st_ino)
            replaced = self.inode is not None and (inode != self.inode or st.st_size < self.offset)
            if replaced:
                self._reset()
            self.inode = inode
            if st.st_size > MAX_TRANSCRIPT_BYTES:
                raise ValueError(f"{self.path} is over {MAX_TRANSCRIPT_BYTES // (1024 * 1024)} MiB; not followed")
            if st.st_size == self.offset:
                return replaced
            f.seek(self.offset)
            data = f.read(st.st_size - self.offset)
        self.offset += len(data)
        self.bytes_read += len(data)
        data = self._partial + data
        cut = data.rfind(b"\n") + 1
        whole, self._partial = data[:cut], data[cut:]
        if not whole:
            return replaced
        records, problems = parse_log_lines(whole, self._next_line)
        self._next_line += whole.count(b"\n")
        self.records += records
        self.problems += problems
        return bool(records) or replaced


class FollowedSession:
    """A ``ContextSession`` kept in step with a ``LiveTranscript``."""

    def __init__(self, transcript: LiveTranscript, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = transcript
        self.id = session_id_for(transcript.path)
        self._make = make_session
        self.journal = FollowedJournal(self.id)
        self.title = ""
        self.cwd: str | None = None
        self.rebuilds = 0
        self.timestamps: list[str | None] = []
        """When each message was logged (ISO, from the transcript)."""
        self.session = self._new_session("")

    def _new_session(self, title: str) -> ContextSession:
        session = self._make(self.id, title)
        session.journal = self.journal
        return session

    def update(self) -> bool:
        """Read what Claude Code appended and apply it; True when the session changed."""
        if not self.transcript.read_new():
            return False
        imported = import_records(self.transcript.path, self.transcript.records, self.transcript.problems)
        messages, origins = imported.session.messages, imported.origins
        self.title, self.cwd, self.timestamps = imported.session.title, imported.cwd, imported.timestamps
        old = self.session.messages
        extends = len(messages) >= len(old) and (not old or messages[len(old) - 1] == old[-1])
        if not extends or self.session.title != self.title:
            self.session = self._new_session(self.title)
            self.rebuilds += bool(old)
            old = []
        new = messages[len(old) :]
        if new:
            with self.journal.updating():
                self.session.append(list(new), reported_usage=_last_usage(origins))
        return bool(new) or not extends


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
