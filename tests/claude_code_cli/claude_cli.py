"""The real Claude Code CLI, offline: a pinned ``@anthropic-ai/claude-code`` against the loopback Messages API stub.

``.ci/setup-tests`` (run by ``.ci/test``) installs the CLI with npm into ``tests/claude_code_cli/.work``
(git-ignored; ``setup.sh`` beside this file). The session-scoped ``claude_code_binary`` fixture (tests/conftest.py,
for any tier) finds it, or skips with the reason it is not there.

``ClaudeCode`` runs ``claude -p`` in print mode in a project under a temporary ``HOME``, with
``ANTHROPIC_BASE_URL`` pointing at a ``MessagesApiStub`` started for the test, a dummy key, and Claude Code's
non-essential traffic and auto-updater off. The stub answers Claude Code's compaction request (its prompt starts
"CRITICAL: Respond with TEXT ONLY") with ``summary``, and every other request from the script queue.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support import real_clients
from tests.support.messages_api_stub import MessagesApiStub, RecordedRequest, StubResponse, reply

WORK = real_clients.CLAUDE_CODE_WORK
COMPACT_PROMPT = "CRITICAL: Respond with TEXT ONLY"
RUN_TIMEOUT = 90
TRAIL_LINE = re.compile(r"^- (.+): ", re.M)


def claude_binary() -> tuple[Path | None, str]:
    """The pinned CLI, or None and why it is not there (the ``claude_code_binary`` fixture asks this)."""
    return real_clients.claude_code()


def is_compaction(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    if not messages:
        return False
    content = messages[-1].get("content")
    texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content if isinstance(b, dict)]
    return any(COMPACT_PROMPT in t for t in texts)


def trail(context: str) -> set[str]:
    """The files our hook's context names in its artifact trail."""
    return set(TRAIL_LINE.findall(context.split("<artifact-trail", 1)[-1]))


def request_text(body: dict[str, Any]) -> str:
    """Every text the request carries to the model (system, messages, tool results), joined."""
    parts: list[str] = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(str(b.get("text", "")) for b in system if isinstance(b, dict))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for block in content or []:
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, str):
                    parts.append(inner)
                elif isinstance(inner, list):
                    parts.extend(str(b.get("text", "")) for b in inner if isinstance(b, dict))
    return "\n".join(parts)


@dataclass
class ClaudeCode:
    """One offline Claude Code set-up: a temporary HOME, a project in it, the stub."""

    binary: Path
    home: Path
    project: Path
    stub: MessagesApiStub
    summary: str = "<summary>The user asked for work on the project; it is done.</summary>"
    results: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.stub.responder = lambda body: reply(self.summary) if is_compaction(body) else None
        self.stub.default = reply("Nothing more to do.")

    @property
    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR")}
        return {
            **keep,
            "HOME": str(self.home),
            "ANTHROPIC_BASE_URL": self.stub.base_url,
            "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }

    def run(
        self, prompt: str, *, resume: str | None = None, tools: str = "Read Edit Write Bash Agent"
    ) -> dict[str, Any]:
        """``claude -p`` once; the result JSON (``session_id``, ``is_error``, ``result``...)."""
        args = [str(self.binary), "-p", prompt, "--output-format", "json", "--permission-mode", "acceptEdits"]
        if resume:
            args += ["--resume", resume]
        args += ["--allowedTools", tools]
        done = subprocess.run(
            args, cwd=self.project, env=self.env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
        )
        if done.returncode != 0:
            raise AssertionError(f"claude exited {done.returncode}: {done.stdout[-2000:]} {done.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(done.stdout)
        self.results.append(result)
        return result

    def compact(self, session_id: str) -> dict[str, Any]:
        return self.run("/compact", resume=session_id)

    def transcript(self, session_id: str) -> Path:
        """The session's transcript, wherever Claude Code put it under ~/.claude/projects."""
        found = sorted((self.home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
        assert found, f"no transcript for {session_id} under {self.home}/.claude/projects"
        return found[0]

    def records(self, session_id: str) -> list[dict[str, Any]]:
        lines = self.transcript(session_id).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def model_requests(self) -> list[RecordedRequest]:
        return [r for r in self.stub.requests if r.path.split("?")[0] == "/v1/messages"]

    def after(self, index: int) -> list[RecordedRequest]:
        return self.model_requests()[index:]

    def push(self, *responses: StubResponse) -> None:
        self.stub.push(*responses)
