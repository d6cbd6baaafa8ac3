"""Codex CLI's rollouts as read-only sessions: the workspace's Codex sessions, kept in step as Codex writes.

Codex keeps every session in ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`` whatever the
project; a rollout belongs to the workspace when its first line (``session_meta``) names the workspace as its
``cwd``. ``FollowedCodexSession`` holds what the model holds now (since Codex's last compaction: the history it
kept, then what followed; ``CodexRollout.current_context``), read again whole when the file changed (a ``stat``
says so; Codex rollouts are small next to Claude Code's transcripts, and a compaction rewrites what the model
holds anyway). Everything that would change the context from outside is refused by its journal (``OwnedByCodex``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compact_lsp.companion.live import FollowedJournal
from compact_lsp.engine.codex.rollout import read_rollout
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.usage import ContextUsage, build_usage, reported_input_tokens
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_status import SessionStatus, status_of
from compact_lsp.store.session_lock import SessionBusy

SOURCE = "codex"
ID_PREFIX = "codex-"
MAX_META_BYTES = 1 << 20
SCAN_LIMIT = 400
"""Rollouts looked at (newest first) when the follower starts; others join when Codex writes to them."""


@dataclass(frozen=True)
class CodexSettings:
    """``codex.*``: following the workspace's Codex CLI sessions."""

    SECTION = "codex"
    follow: bool | None = None
    """None: follow when Codex's sessions folder exists."""
    home: str | None = None
    """Codex's home (default ``$CODEX_HOME``, else ``~/.codex``); its sessions are in ``sessions/`` below it."""


def sessions_root(home: str | None) -> Path:
    return Path(os.path.expanduser(home or os.environ.get("CODEX_HOME") or "~/.codex")) / "sessions"


def rollout_cwd(path: Path) -> str | None:
    """The ``cwd`` a rollout's ``session_meta`` names, or None (not a rollout, unreadable, not a regular file)."""
    try:
        with open_regular(str(path), max_bytes=64 << 20) as f:
            first = f.readline(MAX_META_BYTES)
        record = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    payload = record.get("payload") if isinstance(record, dict) and record.get("type") == "session_meta" else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) and cwd and "\x00" not in cwd else None


def belongs_to(path: Path, workspace_root: str) -> bool:
    cwd = rollout_cwd(path)
    return cwd is not None and os.path.realpath(cwd) == os.path.realpath(workspace_root)


def rollouts_for(root: Path, workspace_root: str, limit: int) -> list[Path]:
    """The workspace's rollouts under ``root``, newest first, at most ``limit`` (of the ``SCAN_LIMIT`` newest)."""
    try:
        found = [(p.stat().st_mtime, p) for p in root.glob("*/*/*/rollout-*.jsonl")]
    except OSError:
        return []
    newest = [p for _, p in sorted(found, reverse=True)[:SCAN_LIMIT]]
    return [p for p in newest if belongs_to(p, workspace_root)][:limit]


def session_id_for(path: Path) -> str:
    """``codex-<thread id>`` (the last five dash-separated parts of the file name are the thread's UUID)."""
    parts = path.stem.split("-")
    return ID_PREFIX + ("-".join(parts[-5:]) if len(parts) > 5 else path.stem)


class OwnedByCodex(SessionBusy):
    """A change to a followed Codex session: Codex owns its context."""

    def __init__(self, session: str) -> None:
        RuntimeError.__init__(
            self,
            f"session {session} is a Codex CLI session, followed read-only: Codex owns its context, so compact it in "
            "Codex (/compact; our hook adds what it leaves out), or import it to continue it here",
        )
        self.session = session
        self.owner = {"agent": "Codex"}


class CodexJournal(FollowedJournal):
    def write(self, record: dict[str, Any]) -> None:
        if not self._updating:
            raise OwnedByCodex(self.session)


@dataclass(frozen=True)
class RolloutFile:
    path: Path


class FollowedCodexSession:
    """A ``ContextSession`` kept in step with a Codex rollout (see the module doc)."""

    def __init__(self, path: Path, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = RolloutFile(path)
        self.id = session_id_for(path)
        self._make = make_session
        self.journal = CodexJournal(self.id)
        self.title = ""
        self.cwd: str | None = None
        self.problems = 0
        self.session = self._new_session("")
        self._stamp: tuple[int, int] | None = None
        self._usage: dict[str, Any] | None = None

    def _new_session(self, title: str) -> ContextSession:
        session = self._make(self.id, title)
        session.journal = self.journal
        return session

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    @property
    def timestamps(self) -> list[str | None]:
        return [None] * len(self.session.messages)

    def usage(self) -> ContextUsage:
        usage = self.session.usage()
        return build_usage(usage.by_kind, self.session.settings, reported_input_tokens(self._usage) or usage.reported)

    def status(self) -> SessionStatus:
        return replace(status_of(self.session), usage=self.usage())

    def update(self) -> bool:
        """Read the rollout again when it changed; True when the session changed."""
        st = os.stat(self.transcript.path)
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return False
        rollout = read_rollout(str(self.transcript.path))
        fixed = repair(rollout.current_context())
        self._stamp, self._usage = stamp, rollout.usage
        self.title, self.cwd, self.problems = rollout.title or "", rollout.cwd, rollout.bad_lines
        self.session = self._new_session(self.title)
        if fixed.messages:
            with self.journal.updating():
                self.session.append(fixed.messages, reported_usage=self._usage)
        return True
