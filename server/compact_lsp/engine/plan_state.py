"""The agent's active plan: the last todo / plan tool state in the conversation, or a plan file.

After a full compaction the summary says what the plan was about; re-attaching the plan itself tells the model
exactly which step it was on (seed: ``createPlanAttachmentIfNeeded``). The todo tools of the agents we know:

- Claude Code ``TodoWrite``, Qwen Code ``todo_write``: ``{"todos": [{"content", "status", "id"?}]}``
- Gemini CLI ``write_todos``: ``{"todos": [{"description", "status"}]}``
- Codex ``update_plan``: ``{"plan": [{"step", "status"}], "explanation"?}``

Each call replaces the whole list, so the last call is the state. A list that is empty, or whose items are all
completed or cancelled, is not an active plan (Claude Code clears such a list too) unless asked for.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .file_gate import AllowedRoots, gated_reader
from .messages import Message, tool_uses

log = logging.getLogger(__name__)

PLAN_TOOLS: frozenset[str] = frozenset({"TodoWrite", "todo_write", "write_todos", "update_plan"})
"""Tools whose input is the whole plan / todo list."""

PlanSource = Literal["tool", "file"]

_STATUS_MARKS: Mapping[str, str] = {
    "completed": "[x]",
    "done": "[x]",
    "in_progress": "[~]",
    "in-progress": "[~]",
    "pending": "[ ]",
    "cancelled": "[-]",
    "canceled": "[-]",
}
_FINISHED = frozenset({"completed", "done", "cancelled", "canceled"})


@dataclass(frozen=True)
class PlanState:
    """The plan as the model will see it: ``text`` ready to attach, ``source`` says where it came from."""

    text: str
    source: PlanSource
    tool_use_id: str | None = None
    path: str | None = None
    items: int = 0
    open_items: int = 0


@dataclass(frozen=True)
class PlanItem:
    text: str
    status: str


def plan_items(tool_input: Mapping[str, Any]) -> list[PlanItem] | None:
    """The items of one plan tool call's input, or None when the input is not a plan we understand."""
    raw = tool_input.get("todos")
    if raw is None:
        raw = tool_input.get("plan")
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for entry in raw:
        if not isinstance(entry, Mapping):
            continue
        text = entry.get("content") or entry.get("description") or entry.get("step") or entry.get("title")
        if not isinstance(text, str) or not text.strip():
            continue
        status = entry.get("status")
        items.append(PlanItem(text=text.strip(), status=status if isinstance(status, str) else "pending"))
    return items


def render_checklist(items: Sequence[PlanItem], explanation: str | None = None) -> str:
    """A Markdown checklist with each item's status: ``[x]`` done, ``[~]`` in progress, ``[ ]`` pending."""
    lines = []
    if explanation:
        lines.append(explanation.strip())
        lines.append("")
    for item in items:
        mark = _STATUS_MARKS.get(item.status, "[ ]")
        lines.append(f"- {mark} {item.text} ({item.status.replace('-', '_')})")
    return "\n".join(lines)


def extract_plan(
    messages: Iterable[Message],
    *,
    plan_tools: frozenset[str] = PLAN_TOOLS,
    include_finished: bool = False,
    plan_file: str | None = None,
    read_text: Callable[[str], bytes] | None = None,
) -> PlanState | None:
    """The active plan: the last plan tool call's list, else the configured plan file, else None.

    The plan file is re-read through the file gate (``file_gate``) with its own folder as the allowed root
    unless ``read_text`` says otherwise: a plan file swapped for a link elsewhere, a FIFO or a huge file is
    not used.

    The call's input is used, not its result: microcompaction may clear the result, never the input.
    """
    last: tuple[str, Mapping[str, Any]] | None = None
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for block in tool_uses(message):
            tool_input = block.get("input")
            if (
                block.get("name") in plan_tools
                and isinstance(tool_input, Mapping)
                and plan_items(tool_input) is not None
            ):
                last = (str(block.get("id", "")), tool_input)
    if last is not None:
        tool_use_id, tool_input = last
        items = plan_items(tool_input) or []
        open_items = sum(1 for item in items if item.status not in _FINISHED)
        if items and (open_items or include_finished):
            explanation = tool_input.get("explanation")
            text = render_checklist(items, explanation if isinstance(explanation, str) else None)
            return PlanState(text=text, source="tool", tool_use_id=tool_use_id, items=len(items), open_items=open_items)
        # The agent's last word on the plan was "nothing left to do"; an older plan file would be stale.
        return None
    if plan_file is not None:
        return plan_from_file(plan_file, read_text=read_text)
    return None


def plan_from_file(path: str, *, read_text: Callable[[str], bytes] | None = None) -> PlanState | None:
    """A plan file's text (a configured ``PLAN.md``, say); None when it is missing, empty, not UTF-8 or refused."""
    reader = read_text or gated_reader(AllowedRoots.of(os.path.dirname(os.path.abspath(path))))
    try:
        text = reader(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.debug("plan file %s not used: %s", path, exc)
        return None
    if not text.strip():
        return None
    return PlanState(text=text.rstrip("\n"), source="file", path=path)
