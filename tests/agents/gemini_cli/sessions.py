"""Gemini CLI session files as 0.61.0 writes them (measured 2026-12-06 on the real CLI, docs/gemini-cli.md): a
header, ``$set`` of ``messages`` at the start (the session context), message records (a ``gemini`` record
written again, whole, once its tool calls are done, then a ``user`` record of the function responses), ``$set`` of
``lastUpdated``, and a compression: ``$set`` of ``messages`` to the session context, the summary and the model's
acknowledgement, then an ``info`` record."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK

STAMP = "2026-12-06T02:16:43.450Z"


class GeminiSession:
    def __init__(self, home: Path, project: Path) -> None:
        self.project = project
        self.session_id = str(uuid.uuid4())
        self.path = (
            home / ".gemini" / "tmp" / project.name / "chats" / f"session-2026-12-06T02-16-{self.session_id[:8]}.jsonl"
        )
        text = f"<session_context>\nWorkspace: {project}\n</session_context>"
        self.context = {"id": "env", "timestamp": STAMP, "type": "user", "content": [{"text": text}]}
        self.lines: list[dict[str, Any]] = [
            {"sessionId": self.session_id, "projectHash": "0" * 64, "startTime": STAMP, "lastUpdated": STAMP,
             "kind": "main"},
            {"$set": {"messages": [self.context]}},
        ]  # fmt: skip
        self.calls = 0
        self.summary = ""

    def user(self, text: str) -> None:
        self.lines += [{"id": str(uuid.uuid4()), "timestamp": STAMP, "type": "user", "content": [{"text": text}]},
                       {"$set": {"lastUpdated": STAMP}}]  # fmt: skip

    def call(self, name: str, args: dict[str, Any], output: str = "", *, error: str | None = None) -> None:
        self.calls += 1
        call_id = f"{name}__{name}_{self.calls}"
        body = {"error": error} if error is not None else {"output": output}
        response = [{"functionResponse": {"id": call_id, "name": name, "response": body}}]
        gemini = {"id": str(uuid.uuid4()), "timestamp": STAMP, "type": "gemini", "content": "", "thoughts": [],
                  "tokens": {"input": 5000, "output": 20, "cached": 0, "thoughts": 0, "tool": 0, "total": 5020},
                  "model": "gemini-2.5-flash"}  # fmt: skip
        done = {**gemini, "toolCalls": [{"id": call_id, "name": name, "args": args, "result": response,
                                         "status": "error" if error is not None else "success"}]}  # fmt: skip
        self.lines += [gemini, {"$set": {"lastUpdated": STAMP}}, done,
                       {"id": str(uuid.uuid4()), "timestamp": STAMP, "type": "user", "content": response}]  # fmt: skip

    def compress(self, summary: str) -> None:
        self.summary = summary
        self.lines += [
            {"$set": {"sessionId": self.session_id}},
            {"$set": {"messages": [self.context,
                                   {"id": "s", "timestamp": STAMP, "type": "user", "content": [{"text": summary}]},
                                   {"id": "a", "timestamp": STAMP, "type": "gemini",
                                    "content": [{"text": COMPRESSION_ACK}]}]}},
            {"id": str(uuid.uuid4()), "timestamp": STAMP, "type": "info",
             "content": "Context compressed from 86% to 0%."},
        ]  # fmt: skip

    def resume(self) -> None:
        """What ``--resume`` writes: the list as it stands, again (not a compression)."""
        self.lines.append({"$set": {"messages": [self.context]}})

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))

    def request(self, *later: tuple[str, str]) -> list[dict[str, str]]:
        """The hook's text-only view of the next request: the session context and the summary as one message (the
        CLI merges consecutive user contents), the acknowledgement, then ``later`` (role, text) messages."""
        first = str(self.context["content"][0]["text"]) + self.summary
        return [{"role": "user", "content": first}, {"role": "model", "content": COMPRESSION_ACK},
                *({"role": r, "content": t} for r, t in later)]  # fmt: skip

    def hook_input(self, messages: list[dict[str, str]] | None = None, event: str = "BeforeModel") -> bytes:
        listed = messages if messages is not None else self.request()
        return json.dumps({
            "session_id": self.session_id, "transcript_path": str(self.path), "cwd": str(self.project),
            "hook_event_name": event, "timestamp": STAMP,
            "llm_request": {"model": "gemini-2.5-flash", "messages": listed,
                            "config": {"temperature": 1, "topP": 0.95, "topK": 64}},
        }).encode()  # fmt: skip
