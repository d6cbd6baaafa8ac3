"""A temporary workspace that stands in for the session author's machine during a replay.

A Claude Code log names files by their absolute paths on the author's machine. ``ReplayWorkspace`` maps those
paths under a temporary directory (the session's ``cwd`` becomes the workspace root; any other absolute path
goes under a sibling ``outside/`` tree, so it stays outside the workspace as it was) and writes each file's
bytes as the log reveals them: a Read's ``toolUseResult.file.content`` with its line range, a Write's content,
an Edit's ``originalFile`` with the edit applied. Rehydration then re-reads real bytes from disk.

Lines the log never showed (a partial read of a longer file) are written as empty lines, so a partially read
file is smaller on disk than it was on the author's machine. Which lines those are is kept (``unseen_lines``), so
scoring never credits an attachment for padding (evaluation/metrics.py).
"""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.engine.conversation.messages import Message, blocks_of
from compact_lsp.engine.files.file_tool_calls import PATH_KEYS
from compact_lsp.engine.session.context_session import ContextSession

UNSEEN = "\x00unseen line\x00"
"""Stands for a line the log never showed while the file is known in part; written to disk as an empty line.
It survives edits applied to the rebuilt text, so the lines an edit moved stay marked."""


@dataclass
class KnownFile:
    """What the log has shown of one file: whole text, or some lines of a known total."""

    text: str | None = None
    """The whole text; may hold ``UNSEEN`` lines (an edit of a file known in part)."""
    lines: dict[int, str] = field(default_factory=dict)
    total_lines: int = 0

    def content(self) -> str:
        """The text with ``UNSEEN`` for each line the log never showed."""
        if self.text is not None:
            return self.text
        return "\n".join(self.lines.get(n, UNSEEN) for n in range(1, self.total_lines + 1))

    def render(self) -> str:
        """The text as written to disk: unseen lines empty."""
        return self.content().replace(UNSEEN, "")

    def unseen_lines(self) -> frozenset[int]:
        """1-based numbers of the lines whose text the log never showed."""
        text = self.content()
        if UNSEEN not in text:
            return frozenset()
        return frozenset(n for n, line in enumerate(text.split("\n"), start=1) if UNSEEN in line)

    def show_lines(self, content: str, start_line: int, total_lines: int | None) -> None:
        shown = content.split("\n")
        if self.text is not None and total_lines == len(self.text.split("\n")):
            # a slice of a file known whole (and of the same length): keep the whole, update the slice
            whole = self.text.split("\n")
            whole[start_line - 1 : start_line - 1 + len(shown)] = shown
            self.text = "\n".join(whole)
            return
        if start_line <= 1 and (total_lines is None or len(shown) >= total_lines):
            self.text, self.lines = content, {}
            self.total_lines = len(shown)
            return
        if self.text is not None:  # the file changed length since: what we knew whole is no longer whole
            self.lines = dict(enumerate(self.text.split("\n"), start=1))
            self.text = None
        for offset, line in enumerate(shown):
            self.lines[start_line + offset] = line
        self.total_lines = max(total_lines or 0, start_line + len(shown) - 1, self.total_lines)


_GUTTER = re.compile(r"^ *(\d+)(?:→|\t)(.*)$")


def _numbered_lines(text: str) -> dict[str, Any] | None:
    """A Read result's text as side data (``content``, ``startLine``), when every line has a line-number gutter
    and the numbers follow each other; the total stays unknown."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    parsed = [_GUTTER.match(line) for line in lines]
    if not lines or any(m is None for m in parsed):
        return None
    numbers = [int(m.group(1)) for m in parsed if m is not None]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    content = "\n".join(m.group(2) for m in parsed if m is not None)
    return {"content": content, "startLine": numbers[0]}


class ReplayWorkspace:
    """Maps the author's paths into ``base`` and materialises files as the replay reveals them."""

    def __init__(self, base: str | Path, original_cwd: str | None) -> None:
        self.base = Path(base)
        self.root = self.base / "ws"
        self.outside = self.base / "outside"
        self.root.mkdir(parents=True, exist_ok=True)
        self.outside.mkdir(parents=True, exist_ok=True)
        self.original_cwd = os.path.normpath(original_cwd) if original_cwd else None
        self.files: dict[str, KnownFile] = {}
        """Mapped path -> what the log has shown of it."""

    def map_path(self, path: str) -> str:
        """The replay's path for one of the author's paths (relative paths stay relative to the root)."""
        if not os.path.isabs(path):
            return str(self.root / path)
        norm = os.path.normpath(path)
        cwd = self.original_cwd
        if cwd is not None and (norm == cwd or norm.startswith(cwd.rstrip("/") + "/")):
            rel = norm[len(cwd) :].lstrip("/")
            return str(self.root / rel) if rel else str(self.root)
        return str(self.outside / norm.lstrip("/"))

    def logged_path(self, mapped: str) -> str:
        """A replay path as the author's tools would show it: relative to the cwd inside it, else absolute."""
        for base, prefix in ((self.root, ""), (self.outside, os.sep)):
            rel = os.path.relpath(mapped, base)
            if not rel.startswith(".."):
                return prefix + rel if prefix or rel != "." else "."
        return mapped

    def map_messages(self, messages: list[Message]) -> list[Message]:
        """Copies of the messages with every tool_use's file path mapped (other text is left as it was)."""
        mapped: list[Message] = []
        for message in messages:
            blocks = blocks_of(message)
            if not any(b.get("type") == "tool_use" for b in blocks):
                mapped.append(message)
                continue
            new_blocks = []
            for block in blocks:
                tool_input = block.get("input")
                if block.get("type") == "tool_use" and isinstance(tool_input, dict):
                    tool_input = copy.deepcopy(tool_input)
                    for key in PATH_KEYS:
                        value = tool_input.get(key)
                        if isinstance(value, str) and value:
                            tool_input[key] = self.map_path(value)
                    block = {**block, "input": tool_input}
                new_blocks.append(block)
            mapped.append({**message, "content": new_blocks})
        return mapped

    def as_logged(self, message: Message) -> Message:
        """``message`` with the replay's paths put back as the author's (the cwd, else the path as it was)."""
        text = json.dumps(message, ensure_ascii=False)
        root, outside = json.dumps(str(self.root))[1:-1], json.dumps(str(self.outside))[1:-1]
        if root not in text and outside not in text:
            return message
        cwd = json.dumps(self.original_cwd or "")[1:-1]
        return json.loads(text.replace(root, cwd).replace(outside, ""))  # type: ignore[no-any-return]

    def shown(self, mapped: str) -> tuple[frozenset[int], int]:
        """For ``mapped`` (a replay path): the lines written as padding, and the file's length (0: unknown)."""
        known = self.files.get(mapped)
        if known is None:
            return frozenset(), 0
        return known.unseen_lines(), len(known.content().split("\n"))

    def _known(self, mapped: str) -> KnownFile:
        return self.files.setdefault(mapped, KnownFile())

    def _write(self, mapped: str) -> None:
        target = Path(mapped)
        if target.exists() and target.is_dir():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.files[mapped].render(), encoding="utf-8", errors="surrogatepass")

    def apply_result(
        self, tool: str, tool_input: dict[str, Any], side: dict[str, Any] | None, result_text: str = ""
    ) -> str | None:
        """Materialise what one successful file tool call shows; returns the mapped path it touched, if any.

        ``tool_input`` is the request's input with paths already mapped; ``side`` is the log's side data; a Read
        whose side data carries no content (sub-agent logs) is taken from ``result_text``'s numbered lines.
        """
        side = side or {}
        path = next((v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v), None)
        if path is None:
            return None
        known = self._known(path)
        file_side = side.get("file")
        if tool == "Read":
            if not isinstance(file_side, dict) or not isinstance(file_side.get("content"), str):
                file_side = _numbered_lines(result_text)
            if file_side is None:
                return None
            start = file_side.get("startLine")
            total = file_side.get("totalLines")
            known.show_lines(
                file_side["content"],
                start if isinstance(start, int) and start > 0 else 1,
                total if isinstance(total, int) else None,
            )
        elif tool == "Write":
            content = tool_input.get("content")
            if not isinstance(content, str):
                return None
            known.text, known.lines, known.total_lines = content, {}, len(content.split("\n"))
        elif tool in ("Edit", "MultiEdit"):
            original = side.get("originalFile", side.get("originalFileContents"))
            if isinstance(original, str):
                known.text, known.lines = original, {}
            elif known.text is None and not known.lines:
                return None  # edited blind and the log does not show the file: nothing honest to write
            edits = tool_input.get("edits") if tool == "MultiEdit" else [tool_input]
            text = known.content()
            for edit in edits if isinstance(edits, list) else []:
                old, new = edit.get("old_string"), edit.get("new_string")
                if not isinstance(old, str) or not isinstance(new, str):
                    continue
                text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
            known.text, known.lines, known.total_lines = text, {}, len(text.split("\n"))
        else:
            return None
        self._write(path)
        return path


def let_in_what_the_user_would(session: ContextSession) -> None:
    """Admit the outside files the log used, as a user answering the editor's prompt with "Let these files in"
    would (lsp/features/outside_files.py): a transcript alone admits nothing, so ``eval`` and ``compact`` model the
    user's yes to measure what the server can re-attach; credential files and links are never proposed."""
    for path, _ in session.state.admitted.proposed(session.work_roots):
        session.admit(path, "transcript")
