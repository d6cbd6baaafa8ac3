"""Following the workspace's Codex CLI sessions: each rollout whose ``cwd`` is the workspace becomes a read-only
session the editors list (``source: "codex"``, ``readOnly: true``), with its usage as Codex's model sees it.

Codex's sessions folder (``$CODEX_HOME/sessions``, or under ``codex.home``) is watched with watchdog,
recursively (Codex makes a folder a day). A rollout that changes is read from where it stopped
(``agents/codex/live.py``), as lsp/following/transcript_follow.py reads every followed file, and the client hears
``compact/didChangeUsage`` as for any session. A rollout of another project is remembered as not ours after one
look at its first line.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.codex.live import SOURCE, CodexSettings, FollowedCodexSession, ownership, rollouts_for
from compact_lsp.lsp.following.claude_code_follow import MAX_FOLLOWED
from compact_lsp.lsp.following.transcript_follow import FollowedUpdates, event_handler

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)


class CodexFollow:
    """The watched sessions folder and the workspace's Codex sessions in it."""

    def __init__(self, server: CompactLanguageServer, root: Path, workspace_root: str) -> None:
        self.server = server
        self.root = root
        self.workspace_root = workspace_root
        self.updates = FollowedUpdates(server, "Codex", SOURCE, self._open)
        """The rollouts followed and their updates."""
        self._others: set[str] = set()
        """Rollouts of other projects (looked at once)."""
        self._observer: Any = None

    def start(self) -> None:
        from watchdog.observers import Observer

        def wanted(path: str) -> bool:
            name = os.path.basename(path)
            return name.startswith("rollout-") and name.endswith(".jsonl")

        self._observer = Observer()
        self._observer.schedule(event_handler(asyncio.get_running_loop(), wanted, self.changed), str(self.root),
                                recursive=True)  # fmt: skip
        self._observer.start()
        for path in rollouts_for(self.root, self.workspace_root, MAX_FOLLOWED):
            self.changed(str(path))
        log.info("following Codex sessions in %s", self.root)

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer = None
        self.updates.stop()

    def changed(self, path: str) -> None:
        """A rollout changed: read what was appended (``FollowedUpdates.changed``), unless it is another project's."""
        if path not in self._others:
            self.updates.changed(path)

    async def _open(self, path: str) -> FollowedCodexSession | None:
        root = self.workspace_root
        mine = await asyncio.to_thread(lambda: ownership(Path(path), root) if os.path.isfile(path) else False)
        if mine is False:
            self._others.add(path)
        if not mine:
            return None  # another project's, or its first line is not written yet: the next write tells
        return FollowedCodexSession(Path(path), self.updates.make_session)


def start_codex_following(server: CompactLanguageServer, settings: CodexSettings) -> None:
    """Follow the workspace's Codex sessions when on (by default: when Codex's sessions folder exists)."""
    from compact_lsp.agents.codex.live import sessions_root

    if settings.follow is False or server.workspace_root is None:
        return
    root = sessions_root(settings.home)
    if not root.is_dir():
        if settings.follow:
            server.show_warning(f"compact-lsp: no Codex sessions to follow: {root} does not exist")
        return
    follow = CodexFollow(server, root, server.workspace_root)
    server.codex = follow
    follow.start()


def stop_codex_following(server: CompactLanguageServer) -> None:
    if server.codex is not None:
        server.codex.stop()
        server.codex = None
