"""The artifact trail: every file a file tool read, edited or wrote in a stretch of conversation, with its last
action. Built from the tool calls themselves, so it holds every such file by construction; the offline summary
lists it and the Claude Code hook (agents/claude_code/hook.py) re-attaches it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from compact_lsp.engine.conversation.messages import Message, tool_results, tool_uses
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.tool_names import DEFAULT_EDIT_TOOLS, DEFAULT_READ_TOOLS, DEFAULT_WRITE_TOOLS

READ_TOOLS: tuple[str, ...] = (*DEFAULT_READ_TOOLS, "read_many_files")
EDIT_TOOLS: tuple[str, ...] = (*DEFAULT_EDIT_TOOLS, "NotebookEdit")
WRITE_TOOLS: tuple[str, ...] = DEFAULT_WRITE_TOOLS


@dataclass(eq=False)
class TrailEntry:
    """One file of the trail with the last thing done to it."""

    path: str
    """As the tool call named it, or joined to ``root`` and normalised when a root was given."""
    action: str
    """``read``, ``edited`` or ``written``, with `` (failed)`` when that last call failed."""


def artifact_trail(
    messages: Iterable[Message],
    root: str | None = None,
    *,
    read_tools: Sequence[str] = READ_TOOLS,
    edit_tools: Sequence[str] = EDIT_TOOLS,
    write_tools: Sequence[str] = WRITE_TOOLS,
) -> list[TrailEntry]:
    """Every file touched, most recent first, each once with its last action."""
    actions = {**{n: "read" for n in read_tools}, **{n: "edited" for n in edit_tools}}
    actions.update({n: "written" for n in write_tools})
    messages = list(messages)
    failed = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m) if b.get("is_error")}
    last: dict[str, str] = {}
    absolute: dict[str, str] = {}  # each path as named, joined to the root once (a file is used many times)
    for message in messages:
        for use in tool_uses(message):
            tool_input = use.get("input")
            action = actions.get(str(use.get("name")))
            if action is None or not isinstance(tool_input, dict):
                continue
            path = input_path(tool_input)
            if path is None:
                continue
            if root is not None:
                if path not in absolute:
                    absolute[path] = os.path.normpath(os.path.join(root, path))
                path = absolute[path]
            last.pop(path, None)
            last[path] = action + (" (failed)" if str(use.get("id")) in failed else "")
    return [TrailEntry(path, action) for path, action in reversed(last.items())]
