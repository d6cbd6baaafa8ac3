"""The real Claude Code tier: one scripted session, compacted with our hook installed, shared by its tests.

The script (``scripted_session``) reads seven files (one of them in part, one of them big), edits one, writes a
new one, runs Bash and a sub-agent (which reads a file of its own), then the user runs ``/compact`` and asks one
more question. The hook is installed the way a user installs it: ``compact-lsp claude-code install-hook``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, RecordedRequest, reply, tool_call

from .claude_cli import ClaudeCode, is_compaction

SUB_AGENT_PROMPT = "Summarise g.py for me"
USER_REQUEST = "Please make b3 return 33 and add new.py"


def source(name: str, lines: int) -> str:
    return "".join(f"def {name}{i}():\n    return {i}  # {name} line {i}\n" for i in range(lines // 2)) + "# end\n"


@dataclass
class Scripted:
    cc: ClaudeCode
    session_id: str
    before_compaction: list[RecordedRequest]
    compaction: RecordedRequest
    after_compaction: list[RecordedRequest]
    records: list[dict[str, Any]]

    @property
    def boundary(self) -> dict[str, Any]:
        return next(r for r in self.records if r.get("subtype") == "compact_boundary")

    def attachments(self, kind: str) -> list[dict[str, Any]]:
        return [
            r["attachment"]
            for r in self.records
            if r.get("type") == "attachment" and r["attachment"].get("type") == kind
        ]

    @property
    def hook_context(self) -> str:
        (success,) = [a for a in self.attachments("hook_success") if a.get("hookName") == "SessionStart:compact"]
        out = json.loads(success["stdout"])
        return str(out["hookSpecificOutput"]["additionalContext"])


@pytest.fixture
def claude_code(claude_code_binary: Path, tmp_path: Path) -> Iterator[ClaudeCode]:
    with MessagesApiStub() as stub:
        home = tmp_path / "home"
        project = home / "work_repo"
        project.mkdir(parents=True)
        yield ClaudeCode(claude_code_binary, home, project, stub)


def _sub_agent_routing(cc: ClaudeCode, answers: list[Any]) -> None:
    """Answer the sub-agent's own requests (its first message is the Agent prompt) from ``answers``."""

    def route(body: dict[str, Any]) -> Any:
        if is_compaction(body):
            return reply(cc.summary)
        first = json.dumps(body.get("messages", [{}])[:1])
        if SUB_AGENT_PROMPT in first and answers:
            return answers.pop(0)
        return None

    cc.stub.responder = route


def install_hook(cc: ClaudeCode) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "claude-code", "install-hook", "--dir", str(cc.project)],
        env={**os.environ, "HOME": str(cc.home)}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Installed" in done.stdout or "installed" in done.stdout, done.stdout


def compacting_by_itself(cc: ClaudeCode) -> None:
    """Four files in the project, our hook installed, and a turn that reads them: the stub reports 990,000 input
    tokens of Claude Code's 1,000,000 window with the second read, so Claude Code compacts by itself before the
    third; the turn ends "Read all four."."""
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (cc.project / name).write_text(source(name[:-3], 120))
    install_hook(cc)
    cc.push(
        tool_call("Read", {"file_path": str(cc.project / "a.py")}),
        tool_call("Read", {"file_path": str(cc.project / "b.py")}, input_tokens=990_000),
        tool_call("Read", {"file_path": str(cc.project / "c.py")}),
        tool_call("Read", {"file_path": str(cc.project / "d.py")}),
        reply("Read all four."),
    )


@pytest.fixture(scope="session")
def scripted(claude_code_binary: Path) -> Iterator[Scripted]:
    with tempfile.TemporaryDirectory(prefix="cc-real-") as tmp, MessagesApiStub() as stub:
        home = Path(tmp) / "home"
        project = home / "work_repo"
        project.mkdir(parents=True)
        cc = ClaudeCode(claude_code_binary, home, project, stub)
        yield scripted_session(cc)


def scripted_session(cc: ClaudeCode) -> Scripted:
    p = cc.project
    for name in "acdefg":
        (p / f"{name}.py").write_text(source(name, 130))
    (p / "b.py").write_text(source("b", 130))
    (p / "big.py").write_text(source("big", 1200))
    _sub_agent_routing(cc, [tool_call("Read", {"file_path": str(p / "g.py")}), reply("g.py defines g0 to g64.")])
    cc.push(
        tool_call("Read", {"file_path": str(p / "a.py"), "offset": 1, "limit": 40}),
        tool_call("Read", {"file_path": str(p / "big.py"), "offset": 300, "limit": 60}),
        *[tool_call("Read", {"file_path": str(p / f"{n}.py")}) for n in "bcdef"],
        tool_call(
            "Edit",
            {"file_path": str(p / "b.py"), "old_string": "return 3  # b line 3", "new_string": "return 33  # b line 3"},
        ),
        tool_call("Write", {"file_path": str(p / "new.py"), "content": "print('new file')\n"}),
        tool_call("Bash", {"command": "ls", "description": "List the project"}),
        tool_call(
            "Agent", {"description": "Summarise g.py", "prompt": SUB_AGENT_PROMPT, "subagent_type": "general-purpose"}
        ),
        reply("Waiting for the sub-agent."),
        reply("All done: b3 returns 33 and new.py is written."),
    )
    session_id = cc.run(USER_REQUEST)["session_id"]
    install_hook(cc)
    n = len(cc.model_requests())
    cc.compact(session_id)
    compaction = [r for r in cc.after(n) if is_compaction(r.body)]
    assert len(compaction) == 1, "Claude Code's /compact sent no compaction request"
    m = len(cc.model_requests())
    cc.push(reply("Continuing from the compacted context."))
    cc.run("What is left to do?", resume=session_id)
    return Scripted(cc, session_id, cc.model_requests()[:n], compaction[0], cc.after(m), cc.records(session_id))
