"""compact/didChangeUsage is debounced: a burst of changes becomes one notification carrying the latest usage."""

from __future__ import annotations

import asyncio
from typing import Any

from compact_lsp.lsp.sessions.usage_notifier import DID_CHANGE_USAGE, UsageNotifier


async def test_a_burst_of_changes_sends_one_notification_with_the_latest_usage() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    arrived = asyncio.Event()

    def send(method: str, params: dict[str, Any]) -> None:
        sent.append((method, params))
        arrived.set()

    notifier = UsageNotifier(send, interval=0.1)
    for total in range(10):
        notifier.changed("ses_1", {"total": total})
    await asyncio.wait_for(arrived.wait(), 5)
    assert sent == [(DID_CHANGE_USAGE, {"sessionId": "ses_1", "usage": {"total": 9}})]

    arrived.clear()
    notifier.changed("ses_1", {"total": 10})
    notifier.changed("ses_2", {"total": 1})
    await asyncio.wait_for(arrived.wait(), 5)
    while len(sent) < 3:
        arrived.clear()
        await asyncio.wait_for(arrived.wait(), 5)
    assert sorted((p["sessionId"], p["usage"]["total"]) for _, p in sent[1:]) == [("ses_1", 10), ("ses_2", 1)]
    notifier.close()
