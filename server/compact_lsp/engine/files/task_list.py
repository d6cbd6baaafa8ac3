"""Claude Code's task list (``TaskCreate`` / ``TaskUpdate``, which replace ``TodoWrite`` in Claude Code 2.1):
the calls folded into one list, as Claude Code folds them.

``TaskCreate {subject, description, activeForm?}`` adds a pending task; Claude Code answers "Task #<id> created
successfully: <subject>". ``TaskUpdate {taskId, status?, subject?, activeForm?}`` changes one (status
``pending``, ``in_progress``, ``completed`` or ``deleted``, which removes it). A create whose result is gone
(cleared by microcompaction) takes the next number, as Claude Code numbers them; a failed call changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

TASK_CREATE = "TaskCreate"
TASK_UPDATE = "TaskUpdate"
TASK_TOOLS = frozenset({TASK_CREATE, TASK_UPDATE})
_CREATED = re.compile(r"Task #(\S+) created successfully")
MAX_TASKS = 500


class TaskFold:
    """The task list so far; ``apply`` one call at a time, ``as_todos`` gives it as a ``TodoWrite`` input."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, str]] = {}
        self._next = 1

    def apply(self, name: str, tool_input: Mapping[str, Any], result: str | None) -> bool:
        """Fold one successful call; False when it is not a task call this understands."""
        if name == TASK_CREATE:
            subject = tool_input.get("subject")
            if not isinstance(subject, str) or not subject.strip() or len(self.tasks) >= MAX_TASKS:
                return False
            found = _CREATED.search(result or "")
            task_id = found.group(1) if found else str(self._next)
            if task_id.isdigit():
                self._next = max(self._next, int(task_id) + 1)
            self.tasks[task_id] = {"content": subject.strip(), "status": "pending"}
            return True
        if name == TASK_UPDATE:
            task_id = tool_input.get("taskId")
            task = self.tasks.get(str(task_id)) if isinstance(task_id, str | int) else None
            if task is None:
                return False
            status, subject = tool_input.get("status"), tool_input.get("subject")
            if status == "deleted":
                del self.tasks[str(task_id)]
                return True
            if isinstance(status, str) and status in ("pending", "in_progress", "completed"):
                task["status"] = status
            if isinstance(subject, str) and subject.strip():
                task["content"] = subject.strip()
            return True
        return False

    def as_todos(self) -> dict[str, Any]:
        return {"todos": [dict(task) for task in self.tasks.values()]}
