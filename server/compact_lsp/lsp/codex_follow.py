"""Following the workspace's Codex CLI sessions: each rollout whose ``cwd`` is the workspace becomes a read-only
session the editors list (``source: "codex"``, ``readOnly: true``), with its usage as Codex's model sees it.

Codex's sessions folder (``$CODEX_HOME/sessions``, or under ``codex.home``) is watched with watchdog,
recursively (Codex makes a folder a day). A rollout that changes is read again in a worker thread under its
session's lock (``companion/codex_live.py``) and the client hears ``compact/didChangeUsage`` as for any session.
A rollout of another project is remembered as not ours after one look at its first line.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.companion.codex_live import SOURCE, CodexSettings, FollowedCodexSession, belongs_to, rollouts_for
from compact_lsp.companion.live import passive
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.lsp.answers import usage_answer
from compact_lsp.lsp.claude_code_follow import DEBOUNCE_SECONDS, MAX_FOLLOWED
from compact_lsp.lsp.notify import changed

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)


class CodexFollow:
    """The watched sessions folder and the workspace's Codex sessions in it."""

    def __init__(self, server: CompactLanguageServer, root: Path, workspace_root: str) -> None:
        self.server = server
        self.root = root
        self.workspace_root = workspace_root
        self.sessions: dict[str, FollowedCodexSession] = {}
        """Rollout path -> its session."""
        self._others: set[str] = set()
        """Rollouts of other projects (looked at once)."""
        self._pending: set[str] = set()
        self._observer: Any = None

    def start(self) -> None:
        from watchdog.observers import Observer

        self._observer = Observer()
        self._observer.schedule(self._handler(), str(self.root), recursive=True)
        self._observer.start()
        for path in rollouts_for(self.root, self.workspace_root, MAX_FOLLOWED):
            self.changed(str(path))
        log.info("following Codex sessions in %s", self.root)

    def _handler(self) -> Any:
        from watchdog.events import FileSystemEventHandler

        loop = asyncio.get_running_loop()
        follow = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                if event.event_type in ("opened", "closed", "closed_no_write") or event.is_directory:
                    return  # our own reads: nothing was written
                for raw in (getattr(event, "src_path", ""), getattr(event, "dest_path", "")):
                    path = os.fsdecode(raw) if raw else ""
                    name = os.path.basename(path)
                    if name.startswith("rollout-") and name.endswith(".jsonl"):
                        loop.call_soon_threadsafe(follow.changed, path)

        return Handler()

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer = None

    def changed(self, path: str) -> None:
        """A rollout changed: read it once the burst is over (Codex writes a line an item)."""
        if path in self._pending or path in self._others:
            return
        self._pending.add(path)
        asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self._start_update, path)

    def _start_update(self, path: str) -> None:
        self._pending.discard(path)
        self.server.run_task(self.update(path), name=f"follow Codex {os.path.basename(path)}")

    def _make_session(self, session_id: str, title: str) -> ContextSession:
        registry = self.server.registry()
        return ContextSession(
            session_id, settings=passive(registry.settings), counter=registry.counter(), title=title,
            clock=registry.clock, workspace_root=self.server.workspace_root, source=SOURCE,
        )  # fmt: skip

    async def update(self, path: str) -> None:
        followed = self.sessions.get(path)
        if followed is None:
            mine = await asyncio.to_thread(lambda: os.path.isfile(path) and belongs_to(Path(path), self.workspace_root))
            if not mine:
                self._others.add(path)
                return
            followed = FollowedCodexSession(Path(path), self._make_session)
            self.sessions[path] = followed
        slot = self.server.registry().follow_slot(followed)
        async with slot.lock:
            try:
                moved = await asyncio.to_thread(followed.update)
            except (OSError, ValueError) as exc:
                log.warning("cannot follow Codex rollout %s: %s", path, exc)
                return
            slot.session = followed.session
            usage = usage_answer(followed.usage()) if moved else None
        if moved:
            changed(self.server, slot, usage)


def start_codex_following(server: CompactLanguageServer, settings: CodexSettings) -> None:
    """Follow the workspace's Codex sessions when on (by default: when Codex's sessions folder exists)."""
    from compact_lsp.companion.codex_live import sessions_root

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
