"""The largest ``max_tokens`` each model takes: a request asking for more is refused by the Messages API
("max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for ...").

A table of current models by name prefix (the models overview's "max output" column); a model it does not know
is sent what was asked for, unclamped.
"""

from __future__ import annotations

MAX_OUTPUT_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-5", 128_000),  # what Claude Code 2.1.332 asks of claude-opus-5-5
    ("claude-opus-4-6", 128_000),
    ("claude-opus-4-5", 64_000),
    ("claude-opus-4-1", 32_000),
    ("claude-opus-4", 32_000),
    ("claude-sonnet-4", 64_000),
    ("claude-haiku-4", 64_000),
    ("claude-3-7-sonnet", 64_000),
    ("claude-3-5-haiku", 8_192),
    ("claude-3-5-sonnet", 8_192),
    ("claude-3-haiku", 4_096),
)
"""Longer prefixes first: the first that matches wins."""


def output_cap(model: str | None) -> int | None:
    """The most output tokens ``model`` may be asked for; None when the table does not know it."""
    name = (model or "").strip().lower()
    return next((cap for prefix, cap in MAX_OUTPUT_TOKENS if name.startswith(prefix)), None)


def capped_output(model: str | None, wanted: int) -> int:
    """``wanted``, lowered to what ``model`` allows."""
    cap = output_cap(model)
    return wanted if cap is None else min(wanted, cap)
