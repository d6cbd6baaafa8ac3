"""The cyclic garbage collector's full passes, run while the server is idle instead of in front of a request.

A full collection passes every object the interpreter tracks, and every thread waits for it. With 50 busy sessions
loaded (bench/bench_load.py) that took 48-311 ms, four to six times a run, and each one a status request met
stood behind (issue 28: status p99 <= 10 ms). Those passes found next to nothing, 0 objects in most: what the
server keeps are trees of dicts and lists that reference counting frees. So:

- what start-up made (modules, classes, the tokenizer's tables) is frozen (``gc.freeze``) and never passed again;
- automatic collections still collect the young generations (recent objects only, a fraction of a millisecond),
  but the oldest only after ``MAX_YOUNG_PASSES`` collections of the middle one (Python's default: 10), so a server
  that is never idle still collects;
- ``IdleCollector.run`` collects the oldest once the server has read no frame and run no engine call for
  ``IDLE_SECONDS``, when anything was promoted to it since the last time.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Protocol

from compact_lsp.runtime.io_threads import engine_busy

log = logging.getLogger(__name__)

IDLE_SECONDS = 2.0
"""How long the server must have read nothing before a full collection runs."""
CHECK_SECONDS = 0.5
MAX_YOUNG_PASSES = 1000
"""Collections of the middle generation after which Python runs a full one itself, idle or not."""


class Collector(Protocol):
    """The parts of the ``gc`` module used here (injected for tests)."""

    def freeze(self) -> None: ...

    def get_threshold(self) -> tuple[int, int, int]: ...

    def set_threshold(self, threshold0: int, threshold1: int = ..., threshold2: int = ..., /) -> None: ...

    def get_count(self) -> tuple[int, int, int]: ...

    def collect(self, generation: int = 2) -> int: ...


class IdleCollector:
    """Full collections when no frame came for ``IDLE_SECONDS``; ``busy`` is told of every frame."""

    def __init__(
        self,
        collector: Collector = gc,
        clock: Callable[[], float] = time.monotonic,
        working: Callable[[], bool] = engine_busy,
    ) -> None:
        self._gc = collector
        self._clock = clock
        self._working = working
        """Whether work is under way that no frame announces (an engine call: a compaction, a followed log)."""
        self._last_busy = clock()

    def start(self) -> None:
        """Freeze what start-up made and leave full collections to the idle moments (and the ceiling)."""
        self._gc.freeze()
        young, middle, _ = self._gc.get_threshold()
        self._gc.set_threshold(young, middle, MAX_YOUNG_PASSES)

    def busy(self) -> None:
        self._last_busy = self._clock()

    def tick(self) -> bool:
        """Collect the oldest generation if the server is idle and anything reached it since; True if it ran."""
        if self._working():
            self.busy()
            return False
        if self._clock() - self._last_busy < IDLE_SECONDS or self._gc.get_count()[2] == 0:
            return False
        started = time.perf_counter()
        found = self._gc.collect(2)
        log.debug(
            "idle full collection: %d unreachable objects in %.1f ms", found, (time.perf_counter() - started) * 1e3
        )
        return True

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            self.tick()
