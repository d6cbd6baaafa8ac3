"""Containment, end to end: reads, rehydration, memory protection and the agent's writes stay in the workspace.

tests/tracking/test_reader.py and tests/agent/test_tools.py cover the reader's and the tools' refusals in-process; here
the real server is asked, for what they do not cover: FIFOs and device files inside the workspace (an open would
hang or stream forever), symlinks into /dev and /proc, the size cap, a file swapped for an escaping symlink or a
FIFO between its read and a compaction, a managed-memory file that is a symlink out of its root, and an agent
write through a symlinked directory with the user's permission given.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
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


@pytest.fixture
def server(workspace: Workspace) -> Iterator[RawServer]:
    with RawServer(workspace) as server:
        yield server


def _fifo(ws: Workspace) -> str:
    os.mkfifo(ws.root / "pipe.py")
    return "pipe.py"


def _device(ws: Workspace) -> str:
    try:
        os.mknod(ws.root / "zero.py", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device node needs root")
    return "zero.py"


def _link(target: str) -> Any:
    def make(ws: Workspace) -> str:
        (ws.root / "link.py").symlink_to(target)
        return "link.py"

    return make


def _huge(ws: Workspace) -> str:
    ws.write("huge.log", ("x" * 99 + "\n") * 110_000)  # 11 MB of text
    return "huge.log"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(_fifo, "FIFO", id="fifo-inside"),
        pytest.param(_device, "device", id="device-node-inside"),
        pytest.param(_link("/dev/zero"), "outside the workspace", id="symlink-to-dev-zero"),
        pytest.param(_link("/proc/self/environ"), "outside the workspace", id="symlink-to-proc"),
        pytest.param(lambda ws: "/proc/self/environ", "outside the workspace", id="proc-absolute"),
        pytest.param(lambda ws: str(ws.base / "outside" / "secret.txt"), "outside the workspace", id="absolute"),
        pytest.param(lambda ws: "src/../../outside/secret.txt", "outside the workspace", id="dotdot-through-dir"),
        pytest.param(_huge, "MiB", id="over-the-size-cap"),
    ],
)
def test_read_file_refusals(server: RawServer, workspace: Workspace, make: Any, message: str) -> None:
    session_id = server.new_session()
    path = make(workspace)
    with pytest.raises(RpcError) as refused:
        server.request("compact/readFile", {"sessionId": session_id, "path": path}, timeout=20)
    assert message.lower() in refused.value.message.lower()
    status = server.request("compact/status", {"sessionId": session_id})
    assert status["readFiles"] == []


def test_a_file_over_the_cap_can_be_read_by_range(server: RawServer, workspace: Workspace) -> None:
    session_id = server.new_session()
    _huge(workspace)
    read = server.request(
        "compact/readFile", {"sessionId": session_id, "path": "huge.log", "offset": 100_000, "limit": 3}
    )
    assert read["numLines"] == 3 and read["startLine"] == 100_000


@pytest.mark.parametrize(
    "swap",
    [
        pytest.param(lambda p, ws: p.symlink_to(ws.base / "outside" / "secret.txt"), id="swapped-for-escaping-symlink"),
        pytest.param(lambda p, ws: os.mkfifo(p), id="swapped-for-fifo"),
        pytest.param(lambda p, ws: p.symlink_to("/proc/self/environ"), id="swapped-for-proc-symlink"),
    ],
)
def test_rehydration_never_attaches_what_left_the_workspace(server: RawServer, workspace: Workspace, swap: Any) -> None:
    session_id = server.new_session()
    server.append(session_id, [{"role": "user", "content": "Look at the app."}])
    target = workspace.root / "src" / "app.py"
    read = server.request("compact/readFile", {"sessionId": session_id, "path": "src/app.py", "toolUseId": "toolu_r"})
    server.append(session_id, [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_r", "name": "read_file",
                                           "input": {"file_path": "src/app.py"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_r", "content": read["content"]}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Padding. " * 400}]},
    ])  # fmt: skip
    target.unlink()
    swap(target, workspace)

    server.command("compact.compact", {"sessionId": session_id})

    seen = str(server.messages(session_id))
    assert SECRET not in seen
    assert "ANTHROPIC_BASE_URL" not in seen and "XDG_STATE_HOME" not in seen  # nothing of /proc/self/environ


def test_memory_protection_is_not_granted_through_an_escaping_symlink(workspace: Workspace) -> None:
    memory = workspace.root / ".compact" / "memory"
    (memory / "real.md").write_text("Build with make.\n")
    (memory / "escape.md").symlink_to(workspace.base / "outside" / "secret.txt")
    options = workspace.options(microcompact={"keepRecent": 1})
    with RawServer(workspace, options) as server:
        session_id = server.new_session()
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Recall the notes."}]
        messages += read_round("toolu_real", str(memory / "real.md"), "Build with make.\n")
        messages += read_round("toolu_escape", str(memory / "escape.md"), "whatever the link showed\n" * 50)
        for i in range(3):
            messages += read_round(f"toolu_{i}", "src/app.py", f"def greet():  # {i}\n" * 50)
        server.append(session_id, messages)

        result = server.command("compact.microcompact", {"sessionId": session_id})

        assert {p["toolUseId"] for p in result["protected"]} == {"toolu_real"}
        assert "toolu_escape" in {c["toolUseId"] for c in result["cleared"]}


def test_agent_write_through_a_symlinked_directory_is_refused_even_when_allowed(workspace: Workspace) -> None:
    (workspace.root / "out").symlink_to(workspace.base / "outside")
    with MessagesApiStub() as stub:
        stub.push(
            tool_call("write_file", {"file_path": "out/planted.txt", "content": "pwned"}, tool_id="toolu_w"),
            reply("I could not write there."),
        )
        env = server_env(ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=stub.base_url)
        with RawServer(workspace, env=env) as server:
            server.prompt_answer = "Allow once"
            session_id = server.new_session()
            result = server.request("compact/chat", {"sessionId": session_id, "text": "Write the file."})
            results = [e for e in server.notifications_of("compact/chatEvent") if e["kind"] == "tool_result"]
    assert result["stopReason"] == "end_turn"
    assert not (workspace.base / "outside" / "planted.txt").exists()
    assert [r["isError"] for r in results] == [True]
    assert "outside the workspace" in results[0]["content"]
