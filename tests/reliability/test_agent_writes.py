"""The agent's writes, through the real server: all or nothing, and the prompt names where they really go.

edit_file, write_file and remember write a temporary file beside the target, fsync it and rename it over the
target (``agent/atomic_files.py``). Each test here failed on main before the fix.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, StubResponse, reply, tool_call

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

FILE_SIZE_LIMIT = 128 * 1024
"""RLIMIT_FSIZE of the server under test: its session file stays below it, the edited file does not."""


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))


def _chat(workspace: Workspace, *calls: StubResponse, limited: bool = False) -> tuple[RawServer, list[dict[str, Any]]]:
    with MessagesApiStub() as stub:
        stub.push(*calls, reply("Done."))
        env = server_env(ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=stub.base_url)
        with RawServer(workspace, env=env, preexec_fn=_limit_file_size if limited else None) as server:
            server.prompt_answer = "Allow once"
            session_id = server.new_session()
            result = server.request("compact/chat", {"sessionId": session_id, "text": "Go."})
            assert result["stopReason"] == "end_turn"
            results = [e for e in server.notifications_of("compact/chatEvent") if e["kind"] == "tool_result"]
    return server, results


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def _big_file(workspace: Workspace) -> Path:
    body = "".join(f"line {i}: {'x' * 70}\n" for i in range(4000))  # about 300 KB, over the size limit
    return workspace.write("big.txt", f"VERSION = 1\n{body}")


def test_an_edit_that_does_not_fit_leaves_the_old_file_whole(workspace: Workspace) -> None:
    """The edit's new text is small, so the session file stays under the limit; the edited file does not."""
    target = _big_file(workspace)
    target.chmod(0o640)
    before = target.read_bytes()
    read = tool_call("read_file", {"file_path": "big.txt", "offset": 1, "limit": 1}, tool_id="toolu_r")

    change = tool_call("edit_file", {"file_path": "big.txt", "old_string": "VERSION = 1", "new_string": "VERSION = 2"})
    _server, results = _chat(workspace, read, change, limited=True)

    assert target.read_bytes() == before
    assert target.stat().st_mode & 0o777 == 0o640
    assert [r["isError"] for r in results] == [False, True]
    assert "the file is unchanged" in results[1]["content"] and "too large" in results[1]["content"].lower()
    assert sorted(p.name for p in workspace.root.iterdir()) == [".compact", "big.txt"]  # no temporary left


def test_an_edit_keeps_the_file_mode(workspace: Workspace) -> None:
    target = workspace.write("run.sh", "#!/bin/sh\necho one\n")
    target.chmod(0o750)
    read = tool_call("read_file", {"file_path": "run.sh"}, tool_id="toolu_r")
    edit = tool_call("edit_file", {"file_path": "run.sh", "old_string": "one", "new_string": "two"}, tool_id="t_e")
    _server, results = _chat(workspace, read, edit)
    assert [r["isError"] for r in results] == [False, False]
    assert target.read_text() == "#!/bin/sh\necho two\n"
    assert target.stat().st_mode & 0o777 == 0o750


def test_remember_prompt_names_the_resolved_folder(workspace: Workspace) -> None:
    memory = workspace.root / ".compact" / "memory"
    memory.rmdir()
    (workspace.root / "notes").mkdir()
    memory.symlink_to(workspace.root / "notes")  # inside the workspace: a valid project root, but elsewhere
    args = {"name": "Build", "description": "how to build", "content": "make all"}
    server, results = _chat(workspace, tool_call("remember", args, tool_id="toolu_m"))
    prompts = [r["params"]["message"] for r in server.server_requests if r["method"] == "window/showMessageRequest"]
    assert len(prompts) == 1 and "resolves to notes/build.md" in prompts[0]
    assert (workspace.root / "notes" / "build.md").read_text() == "# Build\n\nmake all\n"
    assert [r["isError"] for r in results] == [False]
