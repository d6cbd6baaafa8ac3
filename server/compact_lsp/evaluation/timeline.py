"""A session's timeline: its turns, where it is compacted (counterfactually), and what files the agent needed.

What the agent read or edited after a compaction point is the ground truth the rankers and microcompaction are
scored against (evaluation/metrics.py).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.file_use_timeline import FileUse
from compact_lsp.evaluation.metrics import ReRead


def compaction_points(
    messages: Sequence[Message], counter: TokenCounter, every_turns: int, fractions: Sequence[float]
) -> list[int]:
    """Indices of assistant messages before which the conversation is compacted (counterfactually)."""
    sizes = [counter.count_message(m) for m in messages]
    total = sum(sizes)
    points: set[int] = set()
    running = 0
    pending = sorted(f for f in fractions if 0 < f < 1)
    turn = 0
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            if turn > 0 and every_turns > 0 and turn % every_turns == 0:
                points.add(i)
            while pending and running >= pending[0] * total:
                pending.pop(0)
                if turn > 0:
                    points.add(i)
            turn += 1
        running += sizes[i]
    return sorted(points)


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def lookahead(
    uses: Sequence[FileUse], point: int, turn: int, horizon: int, known: set[str], *, workspace: Sequence[str] = ()
) -> list[ReRead]:
    """First use of each previously known file in the ``horizon`` assistant turns from ``point`` on, each
    marked as in a ``workspace`` folder or ``outside`` it (a file the user admitted, or one no root admits)."""
    seen: set[str] = set()
    found: list[ReRead] = []
    for use in uses:
        if use.index < point or use.turn >= turn + horizon:
            continue
        if use.path in seen or use.path not in known or use.creates:
            continue
        seen.add(use.path)
        where = "workspace" if not workspace or _inside(use.path, workspace) else "outside"
        found.append(ReRead(use.path, use.tool, use.offset, use.limit, use.turn - turn, use.old_strings, where))
    return found
