"""Qwen Code transcripts for tests, in the shape Qwen Code 0.24.4 writes (measured 2026-12-05; shared notes and
docs/qwen-code.md): one record a line, tool calls as ``functionCall`` parts, results as ``functionResponse`` parts,
a compaction as a ``system``/``chat_compression`` record."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from compact_lsp.agents.qwen_code.transcript import transcript_dir


class QwenTranscript:
    def __init__(self, home: Path, cwd: Path, session_id: str = "5b0f6c1e-qwen") -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.path = Path(transcript_dir(str(cwd), str(home / ".qwen"))) / f"{session_id}.jsonl"
        self.records: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._clock = itertools.count(0)
        self.fired_at = ""
        """When Qwen ran the hook: just after the last compaction (its input's ``timestamp``)."""

    def _now(self) -> str:
        """A second later than the last record: Qwen stamps each record when it makes it."""
        moment = datetime(2026, 12, 5, 10, 0, tzinfo=UTC) + timedelta(seconds=next(self._clock))
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _record(self, kind: str, message: Any = None, **extra: Any) -> None:
        record = {
            "uuid": f"u{next(self._ids)}",
            "parentUuid": self.records[-1]["uuid"] if self.records else None,
            "sessionId": self.session_id,
            "timestamp": self._now(),
            "type": kind,
            "cwd": str(self.cwd),
            "version": "0.24.4",
            **extra,
        }
        if message is not None:
            record["message"] = message
        self.records.append(record)

    def user(self, text: str) -> None:
        self._record("user", {"role": "user", "parts": [{"text": text}]})

    def answer(self, text: str) -> None:
        self._record("assistant", {"role": "model", "parts": [{"text": text}]})

    def call(self, name: str, args: dict[str, Any], output: str | None = None, *, error: str | None = None) -> None:
        call_id = f"call_{next(self._ids)}"
        part = {"functionCall": {"id": call_id, "name": name, "args": args}}
        # sometimes the message is a JSON string: the reader takes both
        message: Any = {"role": "model", "parts": [part]}
        self._record("assistant", json.dumps(message) if len(self.records) % 2 else message)
        response = {"error": error} if error is not None else {"output": output or ""}
        self._record(
            "tool_result",
            {"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": name, "response": response}}]},
        )

    def compress(self, summary: str) -> None:
        self._record(
            "system",
            subtype="chat_compression",
            systemPayload={
                "info": {"originalTokenCount": 72000, "newTokenCount": 3000, "triggerReason": "manual"},
                "compressedHistory": [
                    {"role": "user", "parts": [{"text": summary}]},
                    {"role": "model", "parts": [{"text": "Got it. Thanks for the additional context!"}]},
                ],
                "completedToolCallIds": [],
            },
        )
        self.fired_at = self.records[-1]["timestamp"].replace(".000Z", ".500Z")

    def compress_unwritten(self) -> None:
        """A compaction whose record was not in the file yet when Qwen ran the hook (it queues its writes)."""
        self.fired_at = self._now()

    def write(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = [json.dumps(r) for r in self.records]
        self.path.write_text("\n".join([*lines[:2], "{not json", *lines[2:]]) + "\n")
        return self.path

    def hook_input(self, source: str = "compact") -> bytes:
        return json.dumps({
            "session_id": self.session_id, "transcript_path": str(self.path), "cwd": str(self.cwd),
            "hook_event_name": "SessionStart", "timestamp": self.fired_at or self._now(),
            "permission_mode": "default", "source": source, "model": "qwen3-coder", "prompt_id": "p1",
        }).encode()  # fmt: skip
