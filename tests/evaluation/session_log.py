"""Small Claude Code session logs written by hand: the records a real log holds, with side data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CWD = "/home/dev/proj"


class SessionLog:
    """Builds a linear session: ``call`` adds an assistant tool call and the user record answering it."""

    def __init__(self, cwd: str = CWD, session_id: str = "5e55-eval") -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.records: list[dict[str, Any]] = []
        self._n = 0
        self.user("Please work on the project")

    def _record(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        self._n += 1
        parent = self.records[-1]["uuid"] if self.records else None
        self.records.append(
            {
                "type": kind,
                "uuid": f"r{self._n}",
                "parentUuid": parent,
                "sessionId": self.session_id,
                "cwd": self.cwd,
                "timestamp": f"2025-01-01T10:{self._n // 60:02d}:{self._n % 60:02d}.000Z",
                "isSidechain": False,
                "message": message,
                **extra,
            }
        )

    def user(self, text: str) -> None:
        self._record("user", {"role": "user", "content": text})

    def say(self, text: str) -> None:
        self._record(
            "assistant",
            {"id": f"msg_{self._n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
             "content": [{"type": "text", "text": text}]},
        )  # fmt: skip

    def call(self, tool: str, tool_input: dict[str, Any], result: str, side: dict[str, Any] | None = None) -> None:
        use_id = f"toolu_{self._n:03d}"
        self._record(
            "assistant",
            {"id": f"msg_{self._n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
             "content": [{"type": "tool_use", "id": use_id, "name": tool, "input": tool_input}]},
        )  # fmt: skip
        extra = {"toolUseResult": side} if side is not None else {}
        self._record(
            "user",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": result}]},
            **extra,
        )

    def read(self, path: str, text: str, offset: int | None = None, limit: int | None = None) -> None:
        """A Read of ``path`` (relative to the cwd) of a file holding ``text``, as Claude Code logs it."""
        lines = text.split("\n")
        first = offset or 1
        shown = lines[first - 1 : first - 1 + limit] if limit else lines[first - 1 :]
        tool_input: dict[str, Any] = {"file_path": f"{self.cwd}/{path}"}
        if offset is not None:
            tool_input["offset"] = offset
        if limit is not None:
            tool_input["limit"] = limit
        gutter = "\n".join(f"{first + i:6d}→{line}" for i, line in enumerate(shown))
        side = {
            "type": "text",
            "file": {
                "filePath": f"{self.cwd}/{path}",
                "content": "\n".join(shown),
                "numLines": len(shown),
                "startLine": first,
                "totalLines": len(lines),
            },
        }
        self.call("Read", tool_input, gutter, side)

    def edit(self, path: str, before: str, old: str, new: str) -> None:
        tool_input = {"file_path": f"{self.cwd}/{path}", "old_string": old, "new_string": new}
        side = {"filePath": f"{self.cwd}/{path}", "oldString": old, "newString": new, "originalFile": before}
        self.call("Edit", tool_input, f"The file {self.cwd}/{path} has been updated.", side)

    def compact(self, summary: str) -> int:
        """Claude Code's compaction, as it logs one: a ``compact_boundary`` record (no parent, its logical parent
        the last record) and its summary; the number of records before the boundary."""
        before = len(self.records)
        self._n += 1
        self.records.append(
            {"type": "system", "subtype": "compact_boundary", "uuid": f"r{self._n}", "parentUuid": None,
             "logicalParentUuid": self.records[-1]["uuid"], "sessionId": self.session_id, "cwd": self.cwd,
             "timestamp": f"2025-01-01T10:{self._n // 60:02d}:{self._n % 60:02d}.000Z", "isSidechain": False,
             "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 150_000}}
        )  # fmt: skip
        self._record("user", {"role": "user", "content": summary}, isCompactSummary=True)
        return before

    def write(self, directory: Path, name: str = "session.jsonl") -> Path:
        path = directory / name
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records), encoding="utf-8")
        return path


def numbered(lines: int, word: str = "value") -> str:
    """A file of ``lines`` distinct lines, about 8 tokens each."""
    return "\n".join(f"{word}_{n} = compute({n}, {n * 7})" for n in range(1, lines + 1)) + "\n"


def words(tokens: int, word: str) -> str:
    """About ``tokens`` tokens of text (one short word each)."""
    return " ".join([word] * tokens)
