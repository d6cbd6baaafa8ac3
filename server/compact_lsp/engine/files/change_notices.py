"""What the model saw of each file, and the 'changed since you read it' notices built from it.

``SeenFiles`` keeps the text each read showed the model (bounded by total characters), learnt when a read's
result is appended or when the server's own reader serves a read. When a watched file changes, the session asks
``notice_for``: a short, bounded unified diff of what the model saw against the disk, or a plain "read it
again" when there is nothing to diff against. ``ChangeNotices`` holds the notices pending for the next view:
one per path, keyed as the notices name it (relative to the workspace when inside it). They ride on the last
user message of the view; when the next messages are appended they are journalled as a ``notice`` record and
become part of history. A change the agent made itself (its write or edit) is no news.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, is_cleared, result_text, tool_uses
from compact_lsp.engine.files.editor_documents import display_path as _relative_display
from compact_lsp.engine.files.read_record import ReadRecord, content_hash

MAX_DIFF_LINES = 60
"""Diff lines in one notice; a longer diff is cut with a note saying how much was left out."""

MAX_NOTICE_CHARS = 4000

MAX_SEEN_CHARS = 16 * 1024 * 1024
"""What one session keeps of the texts the model saw, in characters; least recently seen dropped first."""


def display_path(path: str, workspace_root: str | None) -> str:
    """A path as notices name it: relative to the workspace when inside it."""
    return _relative_display(path, workspace_root) if os.path.isabs(path) else path


def absolute_path(path: str, workspace_root: str | None) -> str:
    """A tool's path argument made absolute against the workspace."""
    if workspace_root and not os.path.isabs(path):
        return os.path.join(workspace_root, path)
    return path


def change_notice(
    path: str,
    seen: str | None,
    now: str | None,
    *,
    max_lines: int = MAX_DIFF_LINES,
    max_chars: int = MAX_NOTICE_CHARS,
) -> str | None:
    """The notice text for ``path``, or None when nothing changed. ``now`` None means the file is gone."""
    if now is None:
        return f"{path} was deleted (or moved away) since you read it; read it again before relying on it."
    if seen is None:
        return f"{path} changed on disk since you read it; read it again before editing it."
    if seen == now:
        return None
    diff = list(
        difflib.unified_diff(
            seen.splitlines(),
            now.splitlines(),
            f"{path} (as you read it)",
            f"{path} (on disk now)",
            n=2,
            lineterm="",
        )
    )
    head = f"{path} changed on disk since you read it. Diff of the change:"
    shown = diff[:max_lines]
    body = "\n".join(shown)
    if len(body) > max_chars:
        body = body[:max_chars].rsplit("\n", 1)[0]
        shown = body.split("\n")
    omitted = len(diff) - len(shown)
    tail = f"\n... {omitted} more diff line(s) not shown; read the file again for the full text." if omitted else ""
    return f"{head}\n{body}{tail}"


LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+(?:→|\t)")
"""Claude Code's Read tool numbers lines ``cat -n`` style ("     1→text"); the diff wants the bare text."""


def strip_line_numbers(text: str) -> str:
    """The file text inside a line-numbered read result; text that is not line-numbered is returned as is."""
    lines = text.split("\n")
    body = lines[:-1] if lines and lines[-1] == "" else lines
    if not body or not all(LINE_NUMBER_PREFIX.match(line) for line in body):
        return text
    return "\n".join(LINE_NUMBER_PREFIX.sub("", line, count=1) for line in lines)


def attached_body(rendered: str) -> str:
    """The file text inside a rehydrated ``<file ...>`` attachment (``file_excerpts.render_file``); other text
    is returned as is."""
    if rendered.startswith("<file ") and rendered.endswith("\n</file>") and "\n" in rendered:
        return rendered[rendered.index("\n") + 1 : -len("\n</file>")]
    return rendered


@dataclass(frozen=True)
class SeenText:
    """What the model saw of a file: ``text`` starting at 1-based line ``start_line``."""

    text: str
    start_line: int = 1
    num_lines: int | None = None
    """None: to the end of the file."""

    def same_range_of(self, whole: str) -> str:
        """The same lines of the file's current text, to diff against."""
        lines = whole.splitlines(keepends=True)
        first = self.start_line - 1
        last = None if self.num_lines is None else first + self.num_lines
        return "".join(lines[first:last])


class SeenFiles:
    """What the model saw, by real path; bounded by total characters, least recently seen dropped first."""

    def __init__(self, max_chars: int = MAX_SEEN_CHARS) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[str, SeenText] = OrderedDict()
        self._chars = 0

    def put(self, path: str, seen: SeenText) -> None:
        self.discard(path)
        if len(seen.text) > self.max_chars:
            return
        self._items[path] = seen
        self._chars += len(seen.text)
        while self._chars > self.max_chars:
            _, dropped = self._items.popitem(last=False)
            self._chars -= len(dropped.text)

    def remember_result(self, record: ReadRecord, block: Block) -> None:
        """A read tool's result, just stored as ``record``: its text without the line numbers, over its range."""
        if is_cleared(block):
            return
        start = record.start_line or record.offset or 1
        count = record.num_lines if record.num_lines is not None else record.limit
        self.put(record.realpath, SeenText(strip_line_numbers(result_text(block)), start, count))

    def remember_served(self, record: ReadRecord, content: str) -> None:
        """A read the server's own reader served: exactly ``content``, to the file's end unless it was partial."""
        start = record.start_line or 1
        partial = start > 1 or (
            record.num_lines is not None and record.total_lines is not None and record.num_lines < record.total_lines
        )
        self.put(record.realpath, SeenText(content, start, record.num_lines if partial else None))

    def notice_for(self, record: ReadRecord, display: str, text_now: str | None, exists: bool) -> str | None:
        """The notice for ``record``'s file now that it holds ``text_now`` (see ``ContextSession.notice_for``)."""
        if not exists:
            return change_notice(display, None, None)
        if text_now is None:  # there but binary, unreadable or huge: say so without a diff
            return change_notice(display, None, "")
        seen = self.get(record.realpath)
        if seen is not None:
            return change_notice(display, seen.text, seen.same_range_of(text_now))
        if record.content_hash == content_hash(text_now):
            return None  # touched, or changed and changed back: the model's copy is still right
        return change_notice(display, None, text_now)

    def get(self, path: str) -> SeenText | None:
        return self._items.get(path)

    def discard(self, path: str) -> None:
        old = self._items.pop(path, None)
        if old is not None:
            self._chars -= len(old.text)

    def __contains__(self, path: object) -> bool:
        return path in self._items


class ChangeNotices:
    """The notices pending for the next view, by path."""

    def __init__(self) -> None:
        self._pending: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self._pending)

    def add(self, path: str, text: str) -> None:
        self._pending[path] = text

    def has(self, path: str, workspace_root: str | None) -> bool:
        return any(key in self._pending for key in {path, display_path(path, workspace_root)})

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
