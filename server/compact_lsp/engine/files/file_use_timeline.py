"""Which files the agent used, in order: each successful Read, Edit, MultiEdit or Write with its path and range.

The Claude Code hook ranks by it, and the evaluation scores against what the agent used after a compaction point.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.conversation.messages import Message, tool_results, tool_uses
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.read_outcome import shows_content, succeeded

NEED_TOOLS = ("Read", "Edit", "MultiEdit", "Write")
"""Tools whose use of a file after compaction means the agent needed its text (a Write only of an existing
file: Claude Code refuses to overwrite a file the model has not read)."""


@dataclass
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
    if tool != "MultiEdit":  # one input, one string at most (a Read's is None): no generator for it
        old = tool_input.get("old_string")
        return (old,) if isinstance(old, str) and old else ()
    edits = tool_input.get("edits")
    found = (e.get("old_string") for e in (edits if isinstance(edits, list) else []) if isinstance(e, dict))
    return tuple(old for old in found if isinstance(old, str) and old)


def file_uses(messages: Sequence[Message], root: str, side: dict[str, dict[str, Any]] | None = None) -> list[FileUse]:
    """Successful Read/Edit/MultiEdit/Write calls, in order, with normalised absolute paths.

    ``side`` is the log's side data by tool_use id: a Write whose side data says ``type: "create"`` made a new
    file (without side data a Write of a file seen before counts as a Write of an existing file).
    """
    side = side or {}
    failed: set[str] = set()
    empty: set[str] = set()  # succeeded without content: a use for an edit, never a read (read_outcome.py)
    answered: set[str] = set()
    for m in messages:  # one pass over the results for both sets (the hook's passes are over a million tokens)
        for b in tool_results(m):
            use_id = str(b.get("tool_use_id"))
            answered.add(use_id)
            if not succeeded(b):
                failed.add(use_id)
            elif not shows_content(b):
                empty.add(use_id)
    turns = turns_of(messages)
    uses: list[FileUse] = []
    absolute: dict[str, str] = {}  # each path as named, joined to the root once (a file is used many times)
    for i, message in enumerate(messages):
        for use in tool_uses(message):
            name, tool_input = use.get("name"), use.get("input")
            if name not in NEED_TOOLS or not isinstance(tool_input, dict):
                continue
            call_id = use.get("id")
            if call_id in failed or call_id not in answered or (name == "Read" and call_id in empty):
                continue
            path = input_path(tool_input)
            if path is None:
                continue
            creates = name == "Write" and side.get(str(call_id), {}).get("type") == "create"
            if path not in absolute:
                absolute[path] = os.path.normpath(os.path.join(root, path))
            uses.append(
                FileUse(
                    i, turns[i], str(name), absolute[path],
                    _int(tool_input.get("offset")), _int(tool_input.get("limit")),
                    _old_strings(str(name), tool_input), creates,
                )
            )  # fmt: skip
    return uses
