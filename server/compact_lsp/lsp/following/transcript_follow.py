"""Following any agent's transcripts, server side: the watcher's events handed to the loop, and each changed file
read where it cannot hold up the loop.

A file that changes is read at once, in the follower's own thread under its session's lock
(``Followed.update``, agents/agent.py, reading only what was appended); a change
while it is being read makes one more read when it is done, so a burst costs two reads, not one a line. Right
after a read that changed the session, in the same thread and under the same lock, its status and its
``compact/sessions`` entry are published (lsp/sessions/snapshots.py), so those requests answer without waiting for the
next read; then the client hears ``compact/didChangeUsage`` as for any session.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import Followed
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import passive
from compact_lsp.lsp.sessions.snapshots import publish
from compact_lsp.lsp.work.notify import changed
from compact_lsp.runtime.cyclic_collector import settle_after_rebuild

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)

OUR_READS = ("opened", "closed", "closed_no_write")
"""Watchdog events our own reads cause: nothing was written."""


def event_handler(
    loop: asyncio.AbstractEventLoop, wanted: Callable[[str], bool], on_change: Callable[[str], None]
) -> Any:
    """A watchdog handler that hands each path written (or made, moved, deleted) that ``wanted`` says is a transcript
    to ``on_change`` on the loop (``wanted`` runs on watchdog's thread)."""
    from watchdog.events import FileSystemEventHandler

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: Any) -> None:
            if event.event_type in OUR_READS:
                return
            for raw in (getattr(event, "src_path", ""), getattr(event, "dest_path", "")):
                path = os.fsdecode(raw) if raw else ""
                if path and wanted(path):
                    loop.call_soon_threadsafe(on_change, path)

    return Handler()


class FollowedUpdates:
    """One agent's followed sessions and their updates (see the module doc)."""

    def __init__(
        self,
        server: CompactLanguageServer,
        agent: str,
        source: str,
        open_followed: Callable[[str], Awaitable[Followed | None]],
    ) -> None:
        self.server = server
        self.agent = agent
        """The agent's name, for logs."""
        self.source = source
        """The ``source`` its sessions are listed with."""
        self._open = open_followed
        """The session of a file not followed yet, or None when it is not one to follow."""
        self.sessions: dict[str, Followed] = {}
        """File path -> its session."""
        self._running: set[str] = set()
        """Files being read now."""
        self._reads: set[asyncio.Task[None]] = set()
        """The reads under way, for a request that names a session a first read may be about to list."""
        self._again: set[str] = set()
        """Files that changed while being read: read once more when done."""
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=f"follow-{source}")
        """Where the files are read, one at a time: one thread, so the memory a read takes and gives back is
        reused by the next (each of the loop's pool threads would keep its own malloc arena, a few MiB each)."""

    def stop(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)

    def changed(self, path: str) -> None:
        """A file changed: read it now, or once the read under way is done."""
        if path in self._running:
            self._again.add(path)
            return
        self._running.add(path)
        task = self.server.run_task(
            self._update_until_quiet(path), name=f"follow {self.agent} {os.path.basename(path)}"
        )
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def reads_done(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) for the reads under way: a session they find is listed after them."""
        if self._reads:
            await asyncio.wait(set(self._reads), timeout=timeout)

    async def _update_until_quiet(self, path: str) -> None:
        try:
            while True:
                self._again.discard(path)
                await self.update(path)
                if path not in self._again:
                    return
        finally:
            self._running.discard(path)

    def make_session(self, session_id: str, title: str) -> ContextSession:
        registry = self.server.registry()
        return ContextSession(
            session_id, settings=passive(registry.settings), counter=registry.counter(), title=title,
            clock=registry.clock, workspace_root=self.server.workspace_root, source=self.source,
        )  # fmt: skip

    async def update(self, path: str) -> None:
        registry = self.server.registry()
        followed = self.sessions.get(path)
        if followed is None:
            followed = await self._open(path)
            if followed is None:
                return
            self.sessions[path] = followed
        slot = registry.follow_slot(followed)

        def update() -> dict[str, Any] | None:
            before = followed.session
            if not followed.update():
                return None
            slot.session = followed.session
            registry.publish_summary(slot)
            usage: dict[str, Any] = publish(slot)["usage"]
            if followed.session is not before:  # the window read whole: the collector's full pass now, once
                self._thread.submit(settle_after_rebuild)  # after this line is told (runtime/cyclic_collector.py)
            return usage

        async with slot.lock:
            try:
                usage = await asyncio.get_running_loop().run_in_executor(self._thread, update)
            except (OSError, ValueError) as exc:
                log.warning("cannot follow %s's %s: %s", self.agent, path, exc)
                return
        if usage is not None:
            changed(self.server, slot, usage)
