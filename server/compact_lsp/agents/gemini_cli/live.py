"""Gemini CLI's session files as read-only sessions: the workspace's Gemini sessions, kept in step as Gemini writes.

Gemini CLI 0.61.0 keeps a project's sessions in ``~/.gemini/tmp/<project's short name>/chats/session-*.jsonl``;
the short name is what ``~/.gemini/projects.json`` maps the project's path to (its folder's name when it is not
there yet). A session file is not only appended to: a ``$set`` of ``messages`` replaces the list (at a compression,
on ``--resume``), so ``FollowedGeminiSession`` reads the file again whole when its size or time changed
(chat_log.py ``read_chat``: what the model holds now) and makes the session afresh from it: the messages before
the last assistant message committed, that message and what follows open. Everything that would change the
context from outside is refused by its journal (``OwnedByGeminiCli``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.agents.followed_window import (
    AgentCompaction,
    FollowedJournal,
    FollowedTranscript,
    OpenTail,
    marked_compactions,
)
from compact_lsp.agents.gemini_cli.auto_compaction import gemini_auto_compaction, token_limit
from compact_lsp.agents.gemini_cli.chat import gemini_cli_chat_entries
from compact_lsp.agents.gemini_cli.chat_log import GeminiChat, read_chat
from compact_lsp.engine.conversation.next_compaction import AutoCompaction
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.setting_ranges import setting
from compact_lsp.store.session_lock import SessionBusy

ID_PREFIX = "gemini-"
LEVELS_TO_WAIT = 3
"""While the project's ``chats`` folder does not exist, how many folders above it to watch for it (``chats``, the
project's folder and ``tmp`` may all be created by Gemini's first session here)."""
MAX_PROJECTS_BYTES = 1 << 20


@dataclass(frozen=True)
class GeminiCliSettings:
    """Following the workspace's Gemini CLI sessions (docs/gemini-cli.md)."""

    SECTION = "geminiCli"
    follow: bool | None = field(
        default=None,
        metadata=setting(
            "Follow the workspace's Gemini CLI sessions as read-only sessions, read again as Gemini writes them "
            "(unset: when the project's `~/.gemini/tmp/<project>/chats` folder exists or once it appears).",
            more='A followed session (`source: "gemini-cli"`) is what the model sees now (since Gemini\'s last '
            "compression); `docs/gemini-cli.md`.",
            not_in_vscode="the server follows when the project's chats folder exists",
        ),
    )
    home: str | None = field(
        default=None,
        metadata=setting(
            "The folder that holds Gemini CLI's `.gemini` (unset: the home directory).",
            kind="path",
            not_in_vscode="Gemini CLI's own folder, found by the server",
        ),
    )


def chats_folder(home: str | None, workspace_root: str) -> Path:
    """``<home>/.gemini/tmp/<the project's short name>/chats``."""
    base = Path(os.path.expanduser(home) if home else os.path.expanduser("~")) / ".gemini"
    short = os.path.basename(workspace_root.rstrip("/")) or "root"
    try:
        with open(base / "projects.json", "rb") as f:
            known = json.loads(f.read(MAX_PROJECTS_BYTES)).get("projects")
        named = known.get(workspace_root) if isinstance(known, dict) else None
        if isinstance(named, str) and named and "/" not in named and named not in (".", ".."):
            short = named
    except (OSError, ValueError, AttributeError):
        pass
    return base / "tmp" / short / "chats"


def transcripts_in(folder: Path) -> list[Path]:
    """A project's session files, newest first."""
    try:
        found = [(p.stat().st_mtime, p) for p in folder.glob("session-*.jsonl")]
    except OSError:
        return []
    return [p for _, p in sorted(found, reverse=True)]


class OwnedByGeminiCli(SessionBusy):
    """A change to a followed Gemini CLI session: Gemini CLI owns its context."""

    def __init__(self, session: str) -> None:
        RuntimeError.__init__(
            self,
            f"session {session} is a Gemini CLI session, followed read-only: Gemini CLI owns its context, so "
            "compress it in Gemini CLI (/compress, or by itself at model.compressionThreshold; our hook adds what it "
            "drops: compact-lsp gemini-cli install-hook), or import it to continue it here",
        )
        self.session = session
        self.owner = {"agent": "Gemini CLI"}


class _SessionFile:
    def __init__(self, path: Path) -> None:
        self.path = path


class FollowedGeminiSession(FollowedTranscript):
    """A ``ContextSession`` kept in step with a Gemini CLI session file (see the module doc)."""

    def __init__(self, path: Path, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = _SessionFile(path)
        self.id = ID_PREFIX + path.stem.removeprefix("session-")
        self._make = make_session
        self._refused = OwnedByGeminiCli
        self.journal = FollowedJournal(self.id, OwnedByGeminiCli)
        self.version = 0
        """Counts the updates that changed the session (what a published status describes)."""
        self.cwd: str | None = None
        self.title = ""
        self._chat = GeminiChat(str(path))
        self._seen: tuple[int, int] | None = None
        self.session = self._new_session("")
        self._open = OpenTail()

    @property
    def timestamps(self) -> list[str | None]:
        return [None] * (len(self.session.messages) + len(self._open.messages))

    def _reported(self) -> dict[str, Any] | None:
        return self._chat.usage

    def context_window(self) -> int | None:
        """The window Gemini CLI compresses against, by the model it last used (auto_compaction.py)."""
        return token_limit(self._chat.model) if self._chat.model else None

    def auto_compaction(self, window: int | None) -> AutoCompaction | None:
        return gemini_auto_compaction(self._chat.model, self.cwd or self.session.workspace_root, self.path)

    def recorded_compactions(self) -> list[AgentCompaction]:
        """Each compression, as its chat's marker: automatic, when, the prompts Gemini reported around it, the
        summary (chat.py)."""
        return marked_compactions(gemini_cli_chat_entries(self.path))

    def chat_entries(self) -> list[dict[str, Any]] | None:
        """Every turn as it happened, a marker at each of Gemini's compressions (chat.py)."""
        return gemini_cli_chat_entries(self.path)

    def update(self) -> bool:
        """Read the session file again when it changed; True when the session changed."""
        try:
            info = self.path.stat()
        except OSError:
            return False
        seen = (info.st_size, info.st_mtime_ns)
        if seen == self._seen:
            return False
        chat = read_chat(str(self.path))
        self._seen, self._chat = seen, chat
        self.cwd, self.title = chat.cwd, chat.title or ""
        window = repair(chat.messages).messages
        cut = next((i for i in range(len(window) - 1, -1, -1) if window[i]["role"] == "assistant"), 0)
        self.session = self._new_session(self.title)
        if cut:
            with self.journal.updating():
                self.session.append(window[:cut], reported_usage=chat.usage)
        self._open = OpenTail(None, window[cut:], None, self.session.counter)
        self.version += 1
        return True
