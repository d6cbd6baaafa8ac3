"""The context window of the model a Claude Code transcript names.

The transcript's own figure wins: Claude Code logs ``cost-state`` records whose ``modelUsage.<model>.contextWindow``
is the window it used (observed: 1,000,000 for its default model in 2.1.332). Without one, a table of current
models by name prefix; a ``[1m]`` suffix (Claude Code's 1M-context variants) means 1,000,000.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ONE_MILLION = 1_000_000
DEFAULT_WINDOW = 200_000
CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (
    ("claude-opus-5", ONE_MILLION),  # claude-opus-5-5: 1,000,000 as Claude Code 2.1.332 reports it
    ("claude-sonnet-5", ONE_MILLION),
    ("claude-opus-4", DEFAULT_WINDOW),
    ("claude-sonnet-4", DEFAULT_WINDOW),
    ("claude-haiku-4", DEFAULT_WINDOW),
    ("claude-3", DEFAULT_WINDOW),
)


def window_by_name(model: str | None) -> int | None:
    """The table's window for ``model`` (None: unknown)."""
    if not model:
        return None
    name = model.strip().lower()
    if name.endswith("[1m]"):
        return ONE_MILLION
    return next((window for prefix, window in CONTEXT_WINDOWS if name.startswith(prefix)), None)


def reported_window(records: Iterable[dict[str, Any]], model: str | None) -> int | None:
    """The last ``contextWindow`` a ``cost-state`` record gives for ``model`` (any model when None)."""
    found: int | None = None
    for data in records:
        usage = data.get("modelUsage") if data.get("type") == "cost-state" else None
        if not isinstance(usage, dict):
            continue
        for name, figures in usage.items():
            window = figures.get("contextWindow") if isinstance(figures, dict) else None
            plausible = isinstance(window, int) and not isinstance(window, bool) and 1_000 <= window <= 100_000_000
            if plausible and (model is None or name == model):
                found = window
    return found


def context_window(records: Iterable[dict[str, Any]], model: str | None) -> int | None:
    """The window the transcript reports for its model, else the table's, else None."""
    return reported_window(records, model) or window_by_name(model)
