"""The one outcome every agent's hook shares without importing anything: the input is not ours."""

from __future__ import annotations


class NotForUs(Exception):
    """Hook input the agent's hook has nothing to do with (another event, another source, a request with nothing
    compressed): print nothing, log nothing."""
