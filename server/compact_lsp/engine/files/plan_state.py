"""The agent's active plan: the last todo / plan tool state in the conversation, or a plan file.

After a full compaction the summary says what the plan was about; re-attaching the plan itself tells the model
exactly which step it was on (seed: ``createPlanAttachmentIfNeeded``). The todo tools of the agents we know:

- Claude Code ``TodoWrite``, Qwen Code ``todo_write``: ``{"todos": [{"content", "status", "id"?}]}``
- Gemini CLI ``write_todos``: ``{"todos": [{"description", "status"}]}``
- Codex ``update_plan``: ``{"plan": [{"step", "status"}], "explanation"?}``
- Claude Code 2.1 ``TaskCreate`` / ``TaskUpdate``: one task a call, folded into the list (``task_list``)

Each call replaces the whole list, so the last call is the state. A list that is empty, or whose items are all
completed or cancelled, is not an active plan (Claude Code clears such a list too) unless asked for.

An approved plan document counts too, and is kept in full: Claude Code's plan mode (``ExitPlanMode``'s
``input.plan``, unless the user rejected it: its result is an error) and a plan file the agent wrote (``Write`` of a
Markdown file under ``~/.claude/plans/`` or named ``*plan*.md``). The newest plan document is the plan; a todo list
written after it is its progress and is appended (open items pending, done items done). After a compaction, the
plan re-attached in the summary message (``<plan ...>``) is found again, so a second compaction keeps it.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, result_text, tool_results, tool_uses
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.task_list import TASK_TOOLS, TaskFold

log = logging.getLogger(__name__)

PLAN_TOOLS: frozenset[str] = frozenset({"TodoWrite", "todo_write", "write_todos", "update_plan"})
"""Tools whose input is the whole plan / todo list."""

PLAN_MODE_TOOLS: frozenset[str] = frozenset({"ExitPlanMode", "exit_plan_mode"})
"""Tools whose ``input.plan`` is a plan document the user approves (Claude Code's plan mode)."""
WRITE_TOOLS: frozenset[str] = frozenset({"Write", "write_file"})

PlanSource = Literal["tool", "file", "plan-mode"]
_REATTACHED = re.compile(r"<plan(?: [^>]*)?>\n(.*?)\n</plan>", re.DOTALL)
_SOURCE = re.compile(r'source="([^"]*)"')

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


@dataclass
class PlanState:
    """The plan as the model will see it: ``text`` ready to attach, ``source`` says where it came from."""

    text: str
    source: PlanSource
    tool_use_id: str | None = None
    path: str | None = None
    items: int = 0
    open_items: int = 0


@dataclass
class PlanItem:
    """One step of a task list, with its status."""

    text: str
    status: str


def _plan_list(tool_input: Mapping[str, Any]) -> list[Any] | None:
    raw = tool_input.get("todos")
    if raw is None:
        raw = tool_input.get("plan")
    return raw if isinstance(raw, list) else None


def plan_items(tool_input: Mapping[str, Any]) -> list[PlanItem] | None:
    """The items of one plan tool call's input, or None when the input is not a plan we understand."""
    raw = _plan_list(tool_input)
    if raw is None:
        return None
    items: list[PlanItem] = []
    for entry in raw:
        if not isinstance(entry, (dict, Mapping)):  # dict first: no ABC check for JSON
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


def is_plan_file(path: str) -> bool:
    """A Markdown file under ``.claude/plans/``, or one whose name says it is a plan (``PLAN.md``, ``fix-plan.md``)."""
    norm = path.replace("\\", "/")
    name = os.path.basename(norm).lower()
    return name.endswith(".md") and ("/.claude/plans/" in norm or "plan" in name)


@dataclass(repr=False, eq=False)
class _PlanDoc:
    """The latest plan text found in the history, and where it came from."""

    text: str
    source: PlanSource
    path: str | None = None
    tool_use_id: str | None = None


def _plan_docs_and_todos(
    messages: Iterable[Message], plan_tools: frozenset[str]
) -> tuple[_PlanDoc | None, tuple[str, Mapping[str, Any]] | None, bool]:
    """The newest plan document, the newest todo list, and whether that list came after the document."""
    calls: list[tuple[str, str, Mapping[str, Any]]] = []
    failed: set[str] = set()
    results: dict[str, Block] = {}
    """Each result by its call's id; its text is taken only for the task calls that read it (few of them)."""
    doc: tuple[int, _PlanDoc] | None = None
    for message in messages:
        if message.get("role") == "user":
            for result in tool_results(message):
                results[str(result.get("tool_use_id"))] = result
                if result.get("is_error"):
                    failed.add(str(result.get("tool_use_id")))
            for block in blocks_of(message):
                match = _REATTACHED.search(str(block.get("text", ""))) if block.get("type") == "text" else None
                if match is not None:  # the plan an earlier compaction re-attached
                    head = block["text"][match.start() : match.start(1)]
                    source = _SOURCE.search(head)
                    kind = source.group(1) if source and source.group(1) in ("tool", "file", "plan-mode") else "tool"
                    doc = (len(calls), _PlanDoc(match.group(1), kind))  # type: ignore[arg-type]
                    calls.append(("", "", {}))
            continue
        for block in tool_uses(message):
            tool_input = block.get("input")
            if isinstance(tool_input, (dict, Mapping)):  # dict first: no ABC check for JSON
                calls.append((str(block.get("id", "")), str(block.get("name", "")), tool_input))
    todo: tuple[int, str, Mapping[str, Any]] | None = None
    tasks = TaskFold()
    for index, (tool_use_id, name, tool_input) in enumerate(calls):
        if tool_use_id in failed:
            continue
        if name in TASK_TOOLS:
            answer = results.get(tool_use_id)
            if tasks.apply(name, tool_input, None if answer is None else result_text(answer)):
                todo = (index, tool_use_id, tasks.as_todos())
        elif name in plan_tools and _plan_list(tool_input) is not None:  # the newest list's items are made later
            todo = (index, tool_use_id, tool_input)
        elif name in PLAN_MODE_TOOLS and isinstance(tool_input.get("plan"), str) and tool_input["plan"].strip():
            doc = (index, _PlanDoc(tool_input["plan"].strip(), "plan-mode", tool_use_id=tool_use_id))
        elif name in WRITE_TOOLS and isinstance(tool_input.get("content"), str):
            path = tool_input.get("file_path") or tool_input.get("path")
            if isinstance(path, str) and is_plan_file(path) and tool_input["content"].strip():
                doc = (index, _PlanDoc(tool_input["content"].strip(), "file", path=path, tool_use_id=tool_use_id))
    after = todo is not None and (doc is None or todo[0] > doc[0])
    return (doc[1] if doc else None), ((todo[1], todo[2]) if todo else None), after


def extract_plan(
    messages: Iterable[Message],
    *,
    plan_tools: frozenset[str] = PLAN_TOOLS,
    include_finished: bool = False,
    plan_file: str | None = None,
    read_text: Callable[[str], bytes] | None = None,
) -> PlanState | None:
    """The active plan: the newest approved plan document with the todo list written after it, else the last
    plan tool call's list, else the configured plan file, else None (see the module docstring).

    The plan file is re-read through the file gate (``file_gate``) with its own folder as the allowed root
    unless ``read_text`` says otherwise: a plan file swapped for a link elsewhere, a FIFO or a huge file is
    not used.

    Calls' inputs are used, not their results: microcompaction may clear a result, never an input.
    """
    doc, last, todo_after = _plan_docs_and_todos(messages, plan_tools)
    if doc is not None and doc.source == "tool" and todo_after:
        doc = None  # a re-attached task list that a newer task list replaces
    if last is not None and (doc is None or todo_after):
        tool_use_id, tool_input = last
        items = plan_items(tool_input) or []
        open_items = sum(1 for item in items if item.status not in _FINISHED)
        if items and (open_items or include_finished):
            explanation = tool_input.get("explanation")
            text = render_checklist(items, explanation if isinstance(explanation, str) else None)
            if doc is not None:
                text = f"{doc.text}\n\nProgress (the task list as last written):\n{text}"
                return PlanState(text, doc.source, tool_use_id, doc.path, len(items), open_items)
            return PlanState(text=text, source="tool", tool_use_id=tool_use_id, items=len(items), open_items=open_items)
        # The agent's last word on the plan was "nothing left to do"; an older plan would be stale.
        return None
    if doc is not None:
        return PlanState(text=doc.text, source=doc.source, tool_use_id=doc.tool_use_id, path=doc.path)
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
