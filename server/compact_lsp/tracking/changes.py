"""'Changed since you read it': a short, bounded unified diff of what the model saw against the disk."""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import OrderedDict
from dataclasses import dataclass

MAX_DIFF_LINES = 60
"""Diff lines in one notice; a longer diff is cut with a note saying how much was left out."""

MAX_NOTICE_CHARS = 4000


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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


class SeenContents:
    """What the model saw, by real path; bounded by total characters, least recently seen dropped first."""

    def __init__(self, max_chars: int = 16 * 1024 * 1024) -> None:
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

    def get(self, path: str) -> SeenText | None:
        return self._items.get(path)

    def discard(self, path: str) -> None:
        old = self._items.pop(path, None)
        if old is not None:
            self._chars -= len(old.text)

    def __contains__(self, path: object) -> bool:
        return path in self._items
