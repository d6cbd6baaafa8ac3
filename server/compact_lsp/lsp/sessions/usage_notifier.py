"""``compact/didChangeUsage``, debounced: at most one per session per interval, carrying the latest usage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

DID_CHANGE_USAGE = "compact/didChangeUsage"
USAGE_INTERVAL = 0.1
"""At most one ``compact/didChangeUsage`` per session per this many seconds."""


class UsageNotifier:
    """Sends ``compact/didChangeUsage`` after changes: at once if quiet, else at the end of the interval."""

    def __init__(
        self,
        send: Callable[[str, dict[str, Any]], None],
        *,
        interval: float = USAGE_INTERVAL,
    ) -> None:
        self._send = send
        self._interval = interval
        self._last_sent: dict[str, float] = {}
        self._latest: dict[str, dict[str, Any]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def changed(self, session_id: str, usage: dict[str, Any]) -> None:
        """Record the session's latest usage; the notification carries whatever is latest when it goes."""
        self._latest[session_id] = usage
        if session_id in self._timers:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        due = self._last_sent.get(session_id, float("-inf")) + self._interval
        self._timers[session_id] = loop.call_later(max(0.0, due - now), self._flush, session_id)

    def _flush(self, session_id: str) -> None:
        self._timers.pop(session_id, None)
        usage = self._latest.pop(session_id, None)
        if usage is None:
            return
        self._last_sent[session_id] = asyncio.get_running_loop().time()
        self._send(DID_CHANGE_USAGE, {"sessionId": session_id, "usage": usage})

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
