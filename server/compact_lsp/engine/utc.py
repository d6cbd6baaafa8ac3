"""The one way the server writes a time: epoch seconds as ISO 8601 UTC with a ``Z``."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(epoch: float, *, milliseconds: bool = False) -> str:
    """``2026-05-28T20:26:40Z``; with ``milliseconds`` (eviction records' ``createdAt``) ``…40.250Z``."""
    moment = datetime.fromtimestamp(epoch, UTC)
    if milliseconds:
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
