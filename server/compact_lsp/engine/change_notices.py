"""Change notices: files the model saw that changed on disk since, told on the next view of the conversation.

One bounded notice per path, keyed as the tracker names it (relative to the workspace when inside it). The pending
notices ride on the last user message of the view; when the next messages are appended they are journalled as a
``notice`` record and become part of history. A change the agent made itself (its write or edit) is no news.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .messages import Message, blocks_of, tool_uses


def display_path(path: str, workspace_root: str | None) -> str:
    """A path as notices name it: relative to the workspace when inside it."""
    if workspace_root and os.path.isabs(path):
        relative = os.path.relpath(path, workspace_root)
        if not relative.startswith(".."):
            return relative
    return path


def absolute_path(path: str, workspace_root: str | None) -> str:
    """A tool's path argument made absolute against the workspace."""
    if workspace_root and not os.path.isabs(path):
        return os.path.join(workspace_root, path)
    return path


class ChangeNotices:
    """The notices pending for the next view, by path."""

    def __init__(self) -> None:
        self._pending: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._pending)

    def add(self, path: str, text: str) -> None:
        self._pending[path] = text

    def discard(self, path: str, workspace_root: str | None) -> None:
        """Forget the notice for ``path``, however it was keyed."""
        for key in {path, display_path(path, workspace_root)}:
            self._pending.pop(key, None)

    def discard_written(self, messages: Iterable[Message], writers: set[str], workspace_root: str | None) -> None:
        """Forget notices for the paths the assistant wrote or edited in ``messages``: those changes were its own."""
        if not self._pending:
            return
        for message in messages:
            if message["role"] != "assistant":
                continue
            for block in tool_uses(message):
                tool_input = block.get("input") or {}
                path = tool_input.get("file_path") or tool_input.get("path")
                if block.get("name") in writers and isinstance(path, str):
                    self.discard(absolute_path(path, workspace_root), workspace_root)

    def clear(self) -> None:
        self._pending.clear()

    def text(self) -> str:
        """All pending notices as one text block's text, each in its own system reminder."""
        return "\n".join(f"<system-reminder>\n{text}\n</system-reminder>" for text in self._pending.values())

    def folded_into(self, messages: list[Message]) -> list[Message]:
        """``messages`` with the notices as a last text block of the final user message (a copy either way)."""
        if not self._pending or not messages or messages[-1]["role"] != "user":
            return list(messages)
        last = messages[-1]
        notice = {"type": "text", "text": self.text()}
        return [*messages[:-1], {**last, "content": [*blocks_of(last), notice]}]
