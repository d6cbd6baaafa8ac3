"""What the Claude Code hook adds, as a rule the hook and the evaluation share.

Claude Code re-attaches its own files after a compaction; the hook asks rehydration for what is still needed
within ``DEFAULT_BUDGET`` tokens, with everything Claude Code's new context already holds verbatim given as the
kept messages (so rehydration skips it). ``evaluation/replay.py`` scores the policy "Claude Code + hook" with the
same two functions.
"""

from __future__ import annotations

from collections.abc import Iterable

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.settings import RehydrationSettings

DEFAULT_BUDGET = 10_000
"""Extra tokens the hook may add (files and slices; the plan and the artifact trail come on top, and are small)."""


def hook_rehydration(budget: int = DEFAULT_BUDGET) -> RehydrationSettings:
    """The hook's rehydration: our defaults, with its own (smaller) token budget."""
    return RehydrationSettings(token_budget=budget)


def already_in_context(texts: Iterable[str]) -> list[Message]:
    """Claude Code's new context as kept messages: its summary and the files it put back, verbatim."""
    return [{"role": "user", "content": [{"type": "text", "text": t} for t in texts if t]}]
