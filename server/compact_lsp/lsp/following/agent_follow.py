"""Following an agent's transcripts for the workspace: each becomes a read-only session the editors can show.

One follower per registered agent (agents/registered.py) that is on: by default when its folder exists (Claude
Code's ``~/.claude/projects/<the workspace as a name>``, Codex's ``$CODEX_HOME/sessions``), where the agent's
``followed_folder`` says. The folder is watched with watchdog; until it exists, the nearest of the
``levels_to_wait`` folders above it that exists is watched instead, never recursively (Claude Code makes its project
directory on its first run there; a first install makes ``~/.claude`` or ``~/.codex`` itself), one level at a time
as each appears, and following starts once the folder does. A transcript that changes is read from where it stopped, as
lsp/following/transcript_follow.py reads every followed file, and the client hears ``compact/didChangeUsage`` as
for any session. Its sessions are listed by ``compact/sessions`` with the agent's name as ``source`` and
``readOnly: true``; whatever would change their context is refused (the agent owns it), everything that reads
works.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.agents import registered
from compact_lsp.agents.agent import AgentBeside, Followed, FollowedFolder
from compact_lsp.lsp.following.transcript_follow import FollowedUpdates, event_handler

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.1
"""How long to let a burst of events above the folder settle before looking for it again."""
MAX_FOLLOWED = 20
"""At start the newest this many transcripts are read; others join when the agent writes to them."""


class AgentFollow:
    """One agent's watched folder and the sessions followed in it."""

    def __init__(self, server: CompactLanguageServer, agent: AgentBeside, where: FollowedFolder) -> None:
        self.server = server
        self.agent = agent
        self.where = where
        self.updates = FollowedUpdates(server, agent.owner, agent.name, self._open)
        """The transcripts followed and their updates."""
        self._observer: Any = None
        self._watch: Any = None
        self._watched: Path | None = None
        """The folder watched now: the agent's, or while it does not exist the nearest one above it."""
        self._rechecking = False

    def start(self) -> None:
        from watchdog.observers import Observer

        self._observer = Observer()
        self._observer.start()
        self._watch_nearest()

    def _watch_nearest(self) -> None:
        """Watch the agent's folder when it exists, else the nearest folder that will hold it once the agent makes
        it (its first run in this project may come after the editor opened)."""
        self._rechecking = False
        folder = self.where.folder
        if self._observer is None:
            return
        waiting = [folder, *folder.parents[: self.where.levels_to_wait]]
        nearest = next((d for d in waiting if d.is_dir()), None)
        if nearest is None or nearest == self._watched:
            return
        if self._watch is not None:
            self._observer.unschedule(self._watch)
        recursive = self.where.recursive and nearest == folder
        self._watch = self._observer.schedule(self._handler(), str(nearest), recursive=recursive)
        self._watched = nearest
        if nearest != folder:
            log.info("waiting for %s's folder %s (watching %s)", self.agent.owner, folder, nearest)
            if next((d for d in waiting if d.is_dir()), None) != nearest:  # made between the check and the watch
                self._watch_nearest()
            return
        for path in self.where.newest(MAX_FOLLOWED):
            self.updates.changed(str(path))
        log.info("following %s's transcripts in %s", self.agent.owner, folder)

    def _handler(self) -> Any:
        loop = asyncio.get_running_loop()

        def wanted(path: str) -> bool:
            if self._watched != self.where.folder:  # waiting for the folder: look for it again
                loop.call_soon_threadsafe(self._recheck)
                return False
            return self.where.wanted(path)

        return event_handler(loop, wanted, self.updates.changed)

    def _recheck(self) -> None:
        if not self._rechecking:
            self._rechecking = True
            asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self._watch_nearest)

    async def reads_done(self, timeout: float) -> None:
        await self.updates.reads_done(timeout)

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer = None
        self.updates.stop()

    async def _open(self, path: str) -> Followed | None:
        return await asyncio.to_thread(self.where.open, Path(path), self.updates.make_session)


def start_following(server: CompactLanguageServer, agent: AgentBeside) -> None:
    """Follow the agent's transcripts for the workspace when on (by default: when its folder exists)."""
    settings = server.follow_settings.get(agent.name)
    if settings is None or agent.follows(settings) is False or server.workspace_root is None:
        return
    where = agent.followed_folder(settings, server.workspace_root)
    if where is None:
        return
    if not any(d.is_dir() for d in [where.folder, *where.folder.parents[: where.levels_to_wait]]):
        if agent.follows(settings):
            server.show_warning(f"compact-lsp: no {agent.owner} transcripts to follow: {where.folder} does not exist")
        return
    follow = AgentFollow(server, agent, where)
    server.followers[agent.name] = follow
    follow.start()


def stop_following(server: CompactLanguageServer, agent: AgentBeside) -> None:
    follower = server.followers.pop(agent.name, None)
    if follower is not None:
        follower.stop()


def follow_agents(server: CompactLanguageServer, changed: dict[str, Any] | None = None) -> None:
    """(Re)start following every registered agent whose follow settings are new (all of them when ``changed`` is
    None: at start)."""
    for agent in registered.AGENTS:
        if changed is None or changed.get(agent.name) != server.follow_settings.get(agent.name):
            stop_following(server, agent)
            start_following(server, agent)


def stop_all(server: CompactLanguageServer) -> None:
    for agent in registered.AGENTS:
        stop_following(server, agent)
