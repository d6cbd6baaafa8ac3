"""Qwen Code's transcripts as read-only sessions: the workspace's Qwen sessions, kept in step as Qwen writes.

Qwen Code keeps a project's sessions in ``~/.qwen/projects/<project_name(cwd)>/chats/<sessionId>.jsonl``
(transcript.py ``transcript_dir``), so the folder itself says the workspace. ``FollowedQwenSession`` holds what
the model holds now: the lines appended since the last look are read (``AppendedLines``; a replaced or shortened
transcript is read again from its start) and fed to the transcript reader's builder (chat_log.py ``ChatBuilder``).
Complete messages before the last assistant message are appended to a ``ContextSession`` only this module writes
to; the last assistant message and what follows stay open and are counted each update; a ``chat_compression``
record starts the window again from what Qwen kept. Everything that would change the context from outside is
refused by its journal (``OwnedByQwenCode``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.agents.appended_lines import AppendedLines
from compact_lsp.agents.followed_window import (
    AgentCompaction,
    FollowedJournal,
    FollowedTranscript,
    OpenTail,
    marked_compactions,
)
from compact_lsp.agents.qwen_code.chat import qwen_code_chat_entries
from compact_lsp.agents.qwen_code.chat_log import (
    MAX_CHAT_BYTES,
    ChatBuilder,
    QwenChat,
    first_cwd,
    parse_line,
)
from compact_lsp.agents.qwen_code.transcript import engine_view, transcript_dir
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.context_session import ContextSession, ConversationError
from compact_lsp.engine.setting_ranges import setting
from compact_lsp.store.session_lock import SessionBusy

ID_PREFIX = "qwen-"
LEVELS_TO_WAIT = 3
"""While the project's ``chats`` folder does not exist, how many folders above it to watch for it (``chats``,
the project's folder and ``projects`` may all be created by Qwen's first session here)."""


@dataclass(frozen=True)
class QwenCodeSettings:
    """Following the workspace's Qwen Code sessions (docs/qwen-code.md)."""

    SECTION = "qwenCode"
    follow: bool | None = field(
        default=None,
        metadata=setting(
            "Follow the workspace's Qwen Code sessions as read-only sessions, read from where they stopped as Qwen "
            "appends (unset: when the project's `~/.qwen/projects/<workspace>/chats` folder exists or "
            "once it appears).",
            more='A followed session (`source: "qwen-code"`) is what the model sees now (since Qwen\'s last '
            "compaction); `docs/qwen-code.md`.",
            not_in_vscode="the server follows when the project's chats folder exists",
        ),
    )
    home: str | None = field(
        default=None,
        metadata=setting(
            "Qwen Code's own folder (unset: `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`); its sessions are "
            "in `projects/<workspace>/chats/` below it.",
            kind="path",
            not_in_vscode="Qwen Code's own folder, found by the server",
        ),
    )


def chats_folder(home: str | None, workspace_root: str) -> Path:
    return Path(transcript_dir(workspace_root, os.path.abspath(os.path.expanduser(home)) if home else None))


def belongs_to(path: Path, workspace_root: str) -> bool:
    """Whether a transcript in the workspace's folder is the workspace's: Qwen names the folder with every
    character but a letter or digit as ``-``, so ``/w/a_b`` and ``/w/a-b`` share one; the ``cwd`` its records
    name tells them apart (none named yet: it is taken as the workspace's)."""
    cwd = first_cwd(str(path))
    return cwd is None or real_path(cwd) == real_path(workspace_root)


def transcripts_in(folder: Path) -> list[Path]:
    """A project's transcripts, newest first."""
    try:
        found = [(p.stat().st_mtime, p) for p in folder.glob("*.jsonl")]
    except OSError:
        return []
    return [p for _, p in sorted(found, reverse=True)]


class OwnedByQwenCode(SessionBusy):
    """A change to a followed Qwen Code session: Qwen Code owns its context."""

    def __init__(self, session: str) -> None:
        RuntimeError.__init__(
            self,
            f"session {session} is a Qwen Code session, followed read-only: Qwen Code owns its context, so compact "
            "it in Qwen Code (/compress; our hook adds what it leaves out: compact-lsp qwen-code install-hook), or "
            "import it to continue it here",
        )
        self.session = session
        self.owner = {"agent": "Qwen Code"}


class FollowedQwenSession(FollowedTranscript):
    """A ``ContextSession`` kept in step with a Qwen Code transcript as Qwen appends to it (see the module doc)."""

    def __init__(self, path: Path, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = AppendedLines(path, MAX_CHAT_BYTES)
        self.id = ID_PREFIX + path.stem
        self._make = make_session
        self._refused = OwnedByQwenCode
        self.journal = FollowedJournal(self.id, OwnedByQwenCode)
        self.version = 0
        """Counts the updates that changed the session (what a published status describes)."""
        self.rebuilds = 0
        self._restart()

    def _restart(self) -> None:
        """Nothing read yet (a new, replaced or shortened transcript)."""
        self.title = ""
        self.cwd: str | None = None
        self.problems = 0
        self._chat = QwenChat(str(self.transcript.path))
        self._builder = ChatBuilder(self._chat)
        self.session = self._new_session("")
        self._pending: list[Message] = []
        self._open = OpenTail()

    @property
    def timestamps(self) -> list[str | None]:
        return [None] * (len(self.session.messages) + len(self._open.messages))

    def _reported(self) -> dict[str, Any] | None:
        return self._chat.usage

    def working_set(self) -> WorkingSet:
        """Its file uses as its hook reads them (Qwen's file tools in the engine's words), and its commands."""
        cwd = self.cwd or self.session.workspace_root or ""
        work = WorkingSet(cwd=cwd)
        work.observe(engine_view(self.messages, cwd))
        return work

    def recorded_compactions(self) -> list[AgentCompaction]:
        """Each ``chat_compression`` record of the transcript, as its chat's marker: when, its trigger and figures,
        its summary (chat.py)."""
        return marked_compactions(qwen_code_chat_entries(self.path))

    def chat_entries(self) -> list[dict[str, Any]] | None:
        """Every turn as it happened, a marker at each of Qwen's compactions (chat.py)."""
        return qwen_code_chat_entries(self.path)

    def context_window(self) -> int | None:
        """The window Qwen was configured with (``contextWindowSize`` on its records), when it says."""
        return self._chat.context_window

    def update(self) -> bool:
        """Read what Qwen appended and apply it; True when the session changed."""
        try:
            with self.transcript.look() as appended:
                if appended is None:
                    return False
                if appended.reset:
                    self._restart()
                for raw in appended.lines:
                    record = parse_line(raw)
                    if record is None:
                        self.problems += bool(raw.strip())
                        continue
                    self._builder.add(record)
                    if self._builder.compacted:  # what Qwen summarised away is gone from the model
                        self._builder.compacted = False
                        self.session, self._open, self._pending = self._new_session(self.title), OpenTail(), []
        except BaseException:
            self.transcript.forget()  # stopped mid-way: read it whole next time
            raise
        self.version += 1
        self.cwd = self._chat.cwd
        self._title()
        self._settle(self._builder.take())
        return True

    def _title(self) -> None:
        if not self.title and self._chat.title:
            self.title = self._chat.title
            with self.journal.updating(), contextlib.suppress(ValueError):
                self.session.rename(self.title)

    def _settle(self, done: list[Message]) -> None:
        """Commit the messages that can no longer change (all before the last assistant message); keep that
        message and what follows open."""
        pending = [*self._pending, *done]
        building = self._builder.open_message()
        window = [*pending, *([building] if building is not None else [])]
        cut = next((i for i in range(len(window) - 1, -1, -1) if window[i]["role"] == "assistant"), 0)
        if cut:
            self._commit(pending[:cut])
        self._pending = pending[cut:]
        self._open = OpenTail(None, window[cut:], None, self.session.counter)

    def _commit(self, messages: list[Message]) -> None:
        fixed = repair(messages)
        new = fixed.messages
        if new and fixed.origins[0] is None and messages[0]["role"] == "assistant" and self.session.messages:
            new = new[1:]  # the placeholder repair put before a leading assistant message: the history holds it
        try:
            with self.journal.updating():
                self.session.append(new, reported_usage=self._chat.usage)
        except ConversationError:  # the history's end and these do not fit: commit the window afresh
            self.rebuilds += 1
            whole = repair([*self.session.messages, *messages]).messages
            self.session = self._new_session(self.title)
            with self.journal.updating():
                self.session.append(whole, reported_usage=self._chat.usage)
