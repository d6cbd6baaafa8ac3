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

NEED_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""Tools whose use of a file after compaction means the agent needed its text (a Write only of an existing
file: Claude Code refuses to overwrite a file the model has not read)."""


@dataclass(frozen=True)
class FileUse:
    """A successful use of a file by a tool that needs its text."""

    index: int
    turn: int
    tool: str
    path: str
    offset: int | None
    limit: int | None
    old_strings: tuple[str, ...] = ()
    creates: bool = False
    """A Write that created the file: a sign of work in that directory, not a need of the file's text."""


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


def _old_strings(tool: str, tool_input: dict[str, Any]) -> tuple[str, ...]:
    edits = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
    found = (e.get("old_string") for e in (edits if isinstance(edits, list) else []) if isinstance(e, dict))
    return tuple(old for old in found if isinstance(old, str) and old)


def file_uses(messages: Sequence[Message], root: str, side: dict[str, dict[str, Any]] | None = None) -> list[FileUse]:
    """Successful Read/Edit/MultiEdit/Write calls, in order, with normalised absolute paths.

    ``side`` is the log's side data by tool_use id: a Write whose side data says ``type: "create"`` made a new
    file (without side data a Write of a file seen before counts as a Write of an existing file).
    """
    side = side or {}
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
            creates = name == "Write" and side.get(str(use.get("id")), {}).get("type") == "create"
            uses.append(
                FileUse(
                    i, turns[i], str(name), os.path.normpath(os.path.join(root, path)),
                    _int(tool_input.get("offset")), _int(tool_input.get("limit")),
                    _old_strings(str(name), tool_input), creates,
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


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def added_directories(uses: Sequence[FileUse], point: int, workspace: Sequence[str]) -> list[str]:
    """Directories outside the workspace folders where the agent read or edited with success before ``point``:
    the replay counts each as added by the user (Claude Code asks before it reads or edits outside its
    working directory, so a success means the user let it in)."""
    found: dict[str, None] = {}
    for use in uses:
        if use.index >= point:
            break
        if not _inside(use.path, workspace):
            found.setdefault(os.path.dirname(use.path), None)
    return list(found)


def lookahead(
    uses: Sequence[FileUse],
    point: int,
    turn: int,
    horizon: int,
    known: set[str],
    *,
    workspace: Sequence[str] = (),
    allowed: Sequence[str] | None = None,
) -> list[ReRead]:
    """First use of each previously known file in the ``horizon`` assistant turns from ``point`` on, each
    marked as in a ``workspace`` folder, in an ``added`` directory, or ``outside`` every allowed root."""
    seen: set[str] = set()
    found: list[ReRead] = []
    for use in uses:
        if use.index < point or use.turn >= turn + horizon:
            continue
        if use.path in seen or use.path not in known or use.creates:
            continue
        seen.add(use.path)
        where = "workspace" if not workspace or _inside(use.path, workspace) else "added"
        if allowed is not None and not _inside(use.path, allowed):
            where = "outside"
        found.append(ReRead(use.path, use.tool, use.offset, use.limit, use.turn - turn, use.old_strings, where))
    return found
