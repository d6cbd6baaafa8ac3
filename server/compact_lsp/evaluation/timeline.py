"""A session's timeline: its turns, where it is compacted (counterfactually), and what files the agent needed.

What the agent read or edited after a compaction point is the ground truth the rankers and microcompaction are
scored against (evaluation/metrics.py).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.file_tool_calls import PATH_KEYS
from compact_lsp.engine.messages import Message, tool_results, tool_uses
from compact_lsp.engine.tokens import TokenCounter

from .metrics import ReRead

NEED_TOOLS = ("Read", "Edit", "MultiEdit")
"""Tools whose use of a file after compaction means the agent needed its text."""


@dataclass(frozen=True)
class FileUse:
    """A successful use of a file by a tool that needs its text."""

    index: int
    turn: int
    tool: str
    path: str
    offset: int | None
    limit: int | None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def turns_of(messages: Sequence[Message]) -> list[int]:
    """For each message, the number of assistant messages before it (an assistant message's own turn)."""
    turns, n = [], 0
    for message in messages:
        turns.append(n)
        if message["role"] == "assistant":
            n += 1
    return turns


def file_uses(messages: Sequence[Message], root: str) -> list[FileUse]:
    """Successful Read/Edit/MultiEdit calls, in order, with normalised absolute paths."""
    failed = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m) if b.get("is_error")}
    answered = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m)}
    turns = turns_of(messages)
    uses: list[FileUse] = []
    for i, message in enumerate(messages):
        for use in tool_uses(message):
            name, tool_input = use.get("name"), use.get("input")
            if name not in NEED_TOOLS or not isinstance(tool_input, dict):
                continue
            if use.get("id") in failed or use.get("id") not in answered:
                continue
            path = next((v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v), None)
            if path is None:
                continue
            uses.append(
                FileUse(
                    i, turns[i], str(name), os.path.normpath(os.path.join(root, path)),
                    _int(tool_input.get("offset")), _int(tool_input.get("limit")),
                )
            )  # fmt: skip
    return uses


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


def lookahead(uses: Sequence[FileUse], point: int, turn: int, horizon: int, known: set[str]) -> list[ReRead]:
    """First use of each previously known file in the ``horizon`` assistant turns from ``point`` on."""
    seen: set[str] = set()
    found: list[ReRead] = []
    for use in uses:
        if use.index < point or use.turn >= turn + horizon:
            continue
        if use.path in seen or use.path not in known:
            continue
        seen.add(use.path)
        found.append(ReRead(use.path, use.tool, use.offset, use.limit, use.turn - turn))
    return found
