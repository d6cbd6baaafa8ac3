"""Memory roots and the file gate, through the real server: a repository can neither widen what the server
reads nor wedge it.

A project memory root counts only when its realpath lies inside the workspace (``engine/files/memory.py``); every
file the server re-reads on its own (skills, memory indexes, change-notice diffs, rehydrated files) goes
through the file gate (``engine/files/file_gate.py``). Each test here failed on main before the fix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

from .crash import read_round
from .rpc import SECRET, RawServer, RpcError, Workspace, server_env, workspace_beside_a_secret

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return workspace_beside_a_secret(tmp_path)


def _memory_link(workspace: Workspace, target: Path | str) -> None:
    memory = workspace.root / ".compact" / "memory"
    memory.rmdir()
    memory.symlink_to(target)


def _warnings(server: RawServer) -> list[str]:
    return [str(n["message"]) for n in server.notifications_of("window/showMessage")]


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param(".compact/memory/etc/passwd", id="through-the-memory-link"),
    ],
)
def test_a_project_memory_root_linked_to_slash_opens_nothing(workspace: Workspace, path: str) -> None:
    _memory_link(workspace, "/")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        with pytest.raises(RpcError) as refused:
            server.request("compact/readFile", {"sessionId": session_id, "path": path})
        assert "outside the workspace" in refused.value.message
        warned = [w for w in _warnings(server) if "ignoring the project memory folder" in w]
    assert len(warned) == 1 and "outside the workspace" in warned[0]


def _chat(workspace: Workspace, *calls: Any, answer: str = "Allow once") -> tuple[RawServer, list[dict[str, Any]]]:
    with MessagesApiStub() as stub:
        stub.push(*calls, reply("Done."))
        env = server_env(ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=stub.base_url)
        with RawServer(workspace, env=env) as server:
            server.prompt_answer = answer
            session_id = server.new_session()
            server.request("compact/chat", {"sessionId": session_id, "text": "Go."})
            results = [e for e in server.notifications_of("compact/chatEvent") if e["kind"] == "tool_result"]
    return server, results


def test_the_agent_cannot_read_or_list_through_a_memory_root_linked_out(workspace: Workspace) -> None:
    """The link opens nothing by itself: reading the file outside asks the user for that one file (issue 24's
    admitted files), and the user's Deny keeps it shut; listing the folder is refused outright."""
    _memory_link(workspace, workspace.base / "outside")
    server, results = _chat(
        workspace,
        tool_call("read_file", {"file_path": str(workspace.base / "outside" / "secret.txt")}, tool_id="toolu_r"),
        tool_call("list_directory", {"path": str(workspace.base / "outside")}, tool_id="toolu_l"),
        answer="Deny",
    )
    asked = [r for r in server.server_requests if r.get("method") == "window/showMessageRequest"]
    assert len(asked) == 1 and "secret.txt" in str(asked[0])
    assert [r["isError"] for r in results] == [True, True]
    assert "outside the workspace" in results[1]["content"]
    assert SECRET not in str(results)


def test_remember_never_writes_through_a_memory_root_linked_out(workspace: Workspace) -> None:
    _memory_link(workspace, workspace.base / "outside")
    args = {"name": "Build", "description": "how to build", "content": "make all"}
    server, results = _chat(workspace, tool_call("remember", args, tool_id="toolu_m"))
    assert sorted(os.listdir(workspace.base / "outside")) == ["secret.txt"]
    assert [r["isError"] for r in results] == [True]
    assert not [r for r in server.server_requests if r.get("method") == "window/showMessageRequest"]


def test_a_skill_swapped_for_a_link_out_is_not_attached_by_compaction(workspace: Workspace) -> None:
    skill = workspace.write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\n---\nRun ./deploy.sh\n")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [{"role": "user", "content": "Deploy it."}])
        params = {"sessionId": session_id, "path": ".claude/skills/deploy/SKILL.md", "toolUseId": "toolu_s"}
        read = server.request("compact/readFile", params)
        server.append(session_id, read_round("toolu_s", ".claude/skills/deploy/SKILL.md", read["content"]))
        server.append(session_id, [{"role": "assistant", "content": "Padding. " * 400}])
        skill.unlink()
        skill.symlink_to(workspace.base / "outside" / "secret.txt")

        server.command("compact.compact", {"sessionId": session_id})

        assert SECRET not in str(server.messages(session_id))


@pytest.mark.parametrize("where", ["project", "user"])
def test_a_fifo_at_memory_md_does_not_wedge_the_server(workspace: Workspace, where: str) -> None:
    folder = workspace.root / ".compact" / "memory" if where == "project" else workspace.user_memory
    os.mkfifo(folder / "MEMORY.md")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        status = server.request("compact/status", {"sessionId": session_id}, timeout=20)
        assert status["sessionId"] == session_id
        assert server.request("compact/newSession", {"title": "second"}, timeout=20)["sessionId"]
