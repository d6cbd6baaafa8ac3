"""Following the workspace's Claude Code transcripts: each becomes a read-only session the editors can show.

The project directory (``~/.claude/projects/<workspace path with every character but a letter or digit as "-">``,
or under ``claudeCode.projectsDir``) is watched with watchdog, non-recursively; until it exists (Claude Code makes
it on its first run in the project), the nearest folder above it is watched instead, and following starts once it
appears. A transcript that changes is read from where it stopped (``agents/claude_code/live.py``), as
lsp/following/transcript_follow.py reads every followed file, and the client hears ``compact/didChangeUsage`` as for any
session. Its sessions are listed by ``compact/sessions`` with ``source: "claude-code"`` and ``readOnly: true``;
whatever would change their context is refused (Claude Code owns it), everything that reads works.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.claude_code.live import (
    SOURCE,
    ClaudeCodeSettings,
    FollowedSession,
    project_directory,
    transcripts_in,
)
from compact_lsp.agents.claude_code.transcript_window import LiveTranscript
from compact_lsp.lsp.following.transcript_follow import FollowedUpdates, event_handler

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.1
"""How long to let a burst of events above the project directory settle before looking for it again."""
MAX_FOLLOWED = 20
"""At start the newest this many transcripts are read; others join when Claude Code writes to them."""


class ClaudeCodeFollow:
    """The watched project directory and the sessions followed in it."""

    def __init__(self, server: CompactLanguageServer, directory: Path) -> None:
        self.server = server
        self.directory = directory
        self.updates = FollowedUpdates(server, "Claude Code", SOURCE, self._open)
        """The transcripts followed and their updates."""
        self._observer: Any = None
        self._watch: Any = None
        self._watched: Path | None = None
        """The folder watched now: the project directory, or while it does not exist the nearest one above it."""
        self._rechecking = False
        self.levels_above = 2
        """How far up to wait for the project directory to appear: its projects folder and that folder's parent."""

    def start(self) -> None:
        from watchdog.observers import Observer

        self._observer = Observer()
        self._observer.start()
        self._watch_nearest()

    def _watch_nearest(self) -> None:
        """Watch the project directory when it exists, else the nearest folder that will hold it once Claude Code
        makes it (its first run in this project may come after the editor opened)."""
        self._rechecking = False
        if self._observer is None:
            return
        waiting = [self.directory, *self.directory.parents[: self.levels_above]]
        nearest = next((d for d in waiting if d.is_dir()), None)
        if nearest is None or nearest == self._watched:
            return
        if self._watch is not None:
            self._observer.unschedule(self._watch)
        self._watch = self._observer.schedule(self._handler(), str(nearest), recursive=False)
        self._watched = nearest
        if nearest != self.directory:
            log.info("waiting for Claude Code's project directory %s (watching %s)", self.directory, nearest)
            if self.directory.is_dir():  # made between the check and the watch
                self._watch_nearest()
            return
        for path in transcripts_in(self.directory)[:MAX_FOLLOWED]:
            self.changed(str(path))
        log.info("following Claude Code transcripts in %s", self.directory)

    def _handler(self) -> Any:
        loop = asyncio.get_running_loop()

        def wanted(path: str) -> bool:
            if self._watched != self.directory:  # waiting for the project directory: look for it again
                loop.call_soon_threadsafe(self._recheck)
                return False
            return path.endswith(".jsonl") and not os.path.basename(path).startswith("agent-")

        return event_handler(loop, wanted, self.changed)

    def _recheck(self) -> None:
        if not self._rechecking:
            self._rechecking = True
            asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self._watch_nearest)

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer = None
        self.updates.stop()

    def changed(self, path: str) -> None:
        """A transcript changed: read what was appended (``FollowedUpdates.changed``)."""
        self.updates.changed(path)

    async def _open(self, path: str) -> FollowedSession | None:
        if not os.path.isfile(path):
            return None
        return FollowedSession(LiveTranscript(Path(path)), self.updates.make_session)


def start_following(server: CompactLanguageServer, settings: ClaudeCodeSettings) -> None:
    """Follow the workspace's Claude Code project directory when on (by default: when it exists)."""
    if settings.follow is False or server.workspace_root is None:
        return
    directory = project_directory(settings.projects_dir, server.workspace_root)
    if not directory.is_dir() and not any(d.is_dir() for d in directory.parents[:2]):
        if settings.follow:
            server.show_warning(f"compact-lsp: no Claude Code transcripts to follow: {directory} does not exist")
        return
    follow = ClaudeCodeFollow(server, directory)
    server.claude_code = follow
    follow.start()


def stop_following(server: CompactLanguageServer) -> None:
    if server.claude_code is not None:
        server.claude_code.stop()
        server.claude_code = None
