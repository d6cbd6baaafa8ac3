"""Watching the files the model saw, by watching only their directories.

A recursive watch of the workspace costs one inotify watch per directory of the repository and, with
watchdog's default event set, spins on queue overflows in big trees. Here each directory that holds a tracked
file gets one non-recursive watch, refcounted, so the cost follows the tracked set. Only content-changing
events are subscribed (modify, close-after-write, create, delete, move): our own re-reads open and close
files, and listening to those would feed back into themselves.

Atomic saves (write a temp file, rename it onto the target) arrive as a move whose destination is the tracked
file; vim-style saves (rename the target to a backup, write a new file) as a move away then a create; both are
reported as a change of the tracked path, and the consumer re-hashes to find out what is there now. Events
come on watchdog's thread and reach the event loop with ``loop.call_soon_threadsafe``; bursts are debounced
per path.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import Any, Protocol

from compact_lsp.engine.files.usable_path import real_path

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.05
"""Quiet time after the last event of a burst before the change is reported."""

MAX_DELAY_SECONDS = 0.15
"""A burst that never goes quiet is still reported this long after its first event (within 200 ms)."""


class Observer(Protocol):
    """The part of watchdog's ``Observer`` the watcher uses (injectable for tests)."""

    def schedule(self, event_handler: Any, path: str, *, recursive: bool = ..., event_filter: Any = ...) -> Any: ...

    def unschedule(self, watch: Any) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def join(self, timeout: float | None = None) -> None: ...


def _default_observer() -> Observer:
    from watchdog.observers import Observer as WatchdogObserver

    observer: Observer = WatchdogObserver()
    return observer


def _event_filter() -> list[type[Any]]:
    from watchdog.events import (
        FileClosedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    return [FileModifiedEvent, FileClosedEvent, FileCreatedEvent, FileDeletedEvent, FileMovedEvent]


class FileWatcher:
    """Reports changes to tracked files to ``on_change(real_path)`` on the event loop, debounced."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_change: Callable[[str], None],
        *,
        debounce: float = DEBOUNCE_SECONDS,
        max_delay: float = MAX_DELAY_SECONDS,
        observer_factory: Callable[[], Observer] = _default_observer,
    ) -> None:
        self._loop = loop
        self._on_change = on_change
        self._debounce = debounce
        self._max_delay = max_delay
        self._observer_factory = observer_factory
        self._observer: Observer | None = None
        self._tracked: set[str] = set()
        """Real paths of tracked files. Changed on the loop, one ``add`` or ``discard`` at a time (copying it whole
        on each change cost every append at load a copy of 50,000 paths); watchdog's thread only asks ``in``,
        which the interpreter answers in one step."""
        self._file_counts: dict[str, int] = {}
        self._watches: dict[str, tuple[Any, int]] = {}
        """Directory → (watchdog watch, number of tracked files in it)."""
        self._pending: dict[str, tuple[asyncio.TimerHandle, float]] = {}
        """Path → (timer that reports it, time of the burst's first event)."""
        self._handler: Any = None

    @property
    def tracked(self) -> frozenset[str]:
        return frozenset(self._tracked)

    @property
    def directories(self) -> list[str]:
        return sorted(self._watches)

    def start(self) -> None:
        if self._observer is not None:
            return
        from watchdog.events import FileSystemEventHandler

        watcher = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                watcher._from_thread(event)

        self._handler = _Handler()
        self._observer = self._observer_factory()
        self._observer.start()
        for directory, (_, count) in list(self._watches.items()):
            self._watches[directory] = (self._schedule_directory(directory), count)

    def stop(self) -> None:
        for handle, _ in self._pending.values():
            handle.cancel()
        self._pending.clear()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None
        self._watches.clear()
        self._file_counts.clear()
        self._tracked.clear()

    def track(self, path: str, real: str | None = None) -> str:
        """Start watching ``path`` (refcounted); returns the real path events will be reported under. ``real``:
        the caller resolved it already, off the loop."""
        real = real_path(path) if real is None else real
        count = self._file_counts.get(real, 0)
        self._file_counts[real] = count + 1
        if count == 0:
            self._tracked.add(real)
            self._watch_directory(os.path.dirname(real))
        return real

    def covers(self, real: str) -> bool:
        """Whether changes to the tracked file at ``real`` are reported: its folder is watched (a missing folder,
        or one past the system's limit of watches, is not)."""
        entry = self._watches.get(os.path.dirname(real))
        return real in self._tracked and entry is not None and entry[0] is not None

    def untrack(self, path: str) -> None:
        real = real_path(path)
        count = self._file_counts.get(real, 0)
        if count <= 0:
            return
        if count > 1:
            self._file_counts[real] = count - 1
            return
        del self._file_counts[real]
        self._tracked.discard(real)
        self._unwatch_directory(os.path.dirname(real))

    def _watch_directory(self, directory: str) -> None:
        entry = self._watches.get(directory)
        if entry is not None:
            self._watches[directory] = (entry[0], entry[1] + 1)
            return
        self._watches[directory] = (self._schedule_directory(directory), 1)

    def _schedule_directory(self, directory: str) -> Any:
        if self._observer is None:
            return None
        try:
            return self._observer.schedule(self._handler, directory, recursive=False, event_filter=_event_filter())
        except OSError as exc:  # a missing directory, or out of inotify watches
            log.warning("cannot watch %s (%s); its files' freshness is checked on demand", directory, exc)
            return None

    def _unwatch_directory(self, directory: str) -> None:
        entry = self._watches.get(directory)
        if entry is None:
            return
        watch, count = entry
        if count > 1:
            self._watches[directory] = (watch, count - 1)
            return
        del self._watches[directory]
        if watch is not None and self._observer is not None:
            try:
                self._observer.unschedule(watch)
            except (KeyError, OSError):
                log.debug("watch on %s was already gone", directory)

    # -- watchdog's thread ----------------------------------------------------------------------------------

    def _from_thread(self, event: Any) -> None:
        tracked = self._tracked
        hits = [p for p in (_as_str(event.src_path), _as_str(getattr(event, "dest_path", ""))) if p in tracked]
        for path in hits:
            try:
                self._loop.call_soon_threadsafe(self._schedule, path)
            except RuntimeError:  # the loop closed while shutting down
                return

    # -- the event loop --------------------------------------------------------------------------------------

    def _schedule(self, path: str) -> None:
        now = self._loop.time()
        pending = self._pending.get(path)
        first = now
        if pending is not None:
            pending[0].cancel()
            first = pending[1]
        delay = min(self._debounce, max(0.0, first + self._max_delay - now))
        self._pending[path] = (self._loop.call_later(delay, self._fire, path), first)

    def _fire(self, path: str) -> None:
        self._pending.pop(path, None)
        if path not in self._tracked:
            return
        try:
            self._on_change(path)
        except Exception:
            log.exception("handling a change of %s failed", path)


def _as_str(path: str | bytes) -> str:
    return os.fsdecode(path) if path else ""
