"""Threads for file I/O on paths a repository or the model chose, kept apart from the threads sessions work on.

The watcher's re-reads and the tools' reads, listings and writes touch files anyone may have put in the
workspace: a FIFO the gate missed, a dead network mount, a FUSE file system that never answers. Run on asyncio's
default executor (six threads on two cores), a dozen such calls would take every thread and starve
``compact/newSession`` and every other request that works under a session's lock. ``run_io`` runs them on a pool
of their own (``IO_THREADS`` threads): a hang there can fill that pool, never the session threads; a caller that
must not wait for good wraps it in ``asyncio.wait_for`` (the watcher does).

Engine calls under a session's lock (``lsp/work/in_session.py`` ``in_session``) run on ``run_engine``'s pool of
``ENGINE_THREADS``: they are CPU work in the interpreter, so a third thread adds no speed on two cores, only
another contender for the interpreter that the event loop must win back before it can read or answer the next
request (bench/bench_load.py; docs/benchmarks.md, "Figures behind the code").

``SessionThreads`` is the default executor the server installs: it never waits for a stuck thread when the loop
closes, so a client that closes stdin is never kept waiting on one (the process then ends with ``os._exit``,
see ``cli.main``).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

IO_THREADS = 8
ENGINE_THREADS = 2
SWITCH_INTERVAL = 0.001
"""The server's ``sys.setswitchinterval`` (Python's default is 5 ms): how long the event loop may wait for the
interpreter while an engine thread holds it, each time the loop wakes to read a frame or write an answer
(bench/bench_load.py; docs/benchmarks.md, "Figures behind the code")."""

P = ParamSpec("P")
T = TypeVar("T")


class SessionThreads(ThreadPoolExecutor):
    """A thread pool whose ``shutdown`` never blocks on a stuck thread (asyncio's loop close calls it)."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=True)


class LazyThreads:
    """A ``SessionThreads`` pool made on first use (a server that never needs it starts none of its threads)."""

    def __init__(self, prefix: str, workers: int) -> None:
        self.prefix = prefix
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = SessionThreads(max_workers=self.workers, thread_name_prefix=self.prefix)
            return self._pool


_IO = LazyThreads("compact-io", IO_THREADS)
_ENGINE = LazyThreads("compact-engine", ENGINE_THREADS)


async def run_io(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)`` on the I/O pool (see the module doc); for blocking file I/O only."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_IO.pool(), functools.partial(call, *args, **kwargs))


async def run_engine(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)`` on the engine threads, in a copy of the caller's context (as ``to_thread``)."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    return await loop.run_in_executor(_ENGINE.pool(), functools.partial(context.run, call, *args, **kwargs))
