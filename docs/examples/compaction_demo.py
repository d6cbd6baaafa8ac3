"""The run in docs/compaction.md: ``.venv/bin/python docs/examples/compaction_demo.py`` (offline, no key).

A session in a throwaway workspace reads ``src/login.ts``, records a plan, runs the tests (a 3,000-line failure)
and says what comes next; then a manual full compaction. Prints the editors' answer (``CompactResult``), then the
session as the model now sees it."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.lsp.protocol.answers import compaction_answer

LOGIN_TS = """\
export function login(user: string, password: string): boolean {
  if (!user || !password) return false;
  return check(user, password);
}
"""
PLAN = [
    {"content": "Reject empty passwords in login()", "status": "completed"},
    {"content": "Add a unit test for empty passwords", "status": "in_progress"},
]


def _call(tool_id: str, name: str, tool_input: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
    return {"role": "assistant", "content": content}


def _result(tool_id: str, content: str, *, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content, "is_error": is_error}
    return {"role": "user", "content": [block]}


def session_in(workspace: Path) -> ContextSession:
    (workspace / "src").mkdir()
    memory = workspace / ".compact" / "memory"
    memory.mkdir(parents=True)
    (workspace / "src" / "login.ts").write_text(LOGIN_TS)
    (memory / "MEMORY.md").write_text("- [Lint rules](lint.md): always run eslint before committing\n")
    settings = EngineSettings(memory=MemorySettings(project_root=str(memory), user_root=str(workspace / "no-user")))
    session = ContextSession(
        "ses_demo", settings=settings, counter=TiktokenCounter(), workspace_root=str(workspace),
        system="You are a coding agent.",
    )  # fmt: skip
    session.append([
        {"role": "user", "content": "The login form accepts empty passwords. Fix it and add a test."},
        _call("toolu_01", "read_file", {"file_path": str(workspace / "src" / "login.ts")}, "Let me read login."),
        _result("toolu_01", LOGIN_TS),
        _call("toolu_02", "TodoWrite", {"todos": PLAN}),
        _result("toolu_02", "Todos updated"),
        _call("toolu_03", "run_shell_command", {"command": "npm test"}),
        _result("toolu_03", "FAIL src/login.test.ts\n" + "x\n" * 3000, is_error=True),
        {"role": "assistant", "content": "The runner fails before login; next I will add src/login.test.ts."},
    ])  # fmt: skip
    return session


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        session = session_in(Path(folder))
        outcome = asyncio.run(session.compact(OfflineSummarizer()))
        print(json.dumps(compaction_answer(outcome), indent=2))
        print("-----")
        for message in session.view():
            for block in message["content"]:
                print(f"[{message['role']} {block['type']}]")
                print(block.get("text", block))


if __name__ == "__main__":
    main()
