"""Bounded tools, through the real server: a model-chosen regex cannot freeze it, a huge file cannot blow its memory.

Without ripgrep the agent's grep runs Python ``re`` in a child process killed after 30 s
(``agent/python_grep.py``); on main it ran in the server, holding the GIL, and one pattern froze every request.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

from .crash import read_round
from .rpc import RawServer, RpcError, Workspace, server_env

pytestmark = pytest.mark.timeout(150)


@pytest.mark.skipif(shutil.which("rg") is not None, reason="ripgrep is on PATH: the server would use it")
def test_a_catastrophic_regex_freezes_nothing_and_is_stopped(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("data.txt", "a" * 60 + "!\n")
    with MessagesApiStub() as stub:
        stub.push(tool_call("grep", {"pattern": "(a|aa)+$"}, tool_id="toolu_g"), reply("The search was too slow."))
        env = server_env(ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=stub.base_url)
        with RawServer(workspace, env=env) as server:
            session_id = server.new_session()
            started = time.monotonic()
            chat = server.send("compact/chat", {"sessionId": session_id, "text": "Find the runs of a."})
            assert stub.wait_for_requests(1)
            server.wait_for_notification("compact/chatEvent", lambda e: e["kind"] == "tool_use")

            # the grep is running: the server still answers, at once
            for _ in range(3):
                assert server.request("compact/status", {"sessionId": session_id}, timeout=5)["sessionId"]
            assert server.request("compact/newSession", {"title": "meanwhile"}, timeout=5)["sessionId"]

            result = server.wait(chat, timeout=90)
            took = time.monotonic() - started
            events = server.notifications_of("compact/chatEvent")
    (grep,) = [e for e in events if e["kind"] == "tool_result"]
    assert result["stopReason"] == "end_turn"
    assert grep["isError"] and "did not finish within 30 s" in grep["content"]
    assert took < 60


def _peak_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def _hole(root: Path) -> str:
    with open(root / "hole.txt", "wb") as f:
        f.write(("x" * 63 + "\n").encode() * 256)  # 16 KiB of text, then a 600 MB hole (sparse: no disk)
        f.truncate(16 * 1024 + 600_000_000)
    return "hole.txt"


def _one_line(root: Path) -> str:
    with open(root / "line.txt", "wb") as f:
        f.write(b"first\n")
        for _ in range(150):
            f.write(b"y" * 1_000_000)  # a 150 MB second line
        f.write(b"\nlast\n")
    return "line.txt"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak RSS from /proc")
@pytest.mark.parametrize("make", [pytest.param(_hole, id="16k-then-a-hole"), pytest.param(_one_line, id="long-line")])
def test_a_one_line_read_of_a_huge_file_stays_under_twice_the_resting_memory(tmp_path: Path, make: Any) -> None:
    workspace = Workspace(tmp_path)
    path = make(workspace.root)
    workspace.write("small.txt", "hello\n")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.request("compact/readFile", {"sessionId": session_id, "path": "small.txt"})
        resting = _rss_kib(server.proc.pid)
        try:
            server.request("compact/readFile", {"sessionId": session_id, "path": path, "offset": 1, "limit": 1})
        except RpcError as refused:
            assert "binary" in refused.message  # the hole is NUL bytes
        peak = _peak_kib(server.proc.pid)
    assert peak < 2 * resting, f"peak {peak / 1024:.0f} MiB against {resting / 1024:.0f} MiB resting"


STUCK_READS = """
import threading
import compact_lsp.lsp.work.in_session as work
work.current_text = lambda *args, **kwargs: threading.Event().wait()  # a read that never comes back
"""


def _server_whose_file_reads_hang(tmp_path: Path) -> tuple[Workspace, dict[str, str]]:
    """Fault injection: the watcher's re-read of a changed file never returns, as on a mount that hangs."""
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(STUCK_READS)
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join([str(inject), env.get("PYTHONPATH", "")])
    return Workspace(tmp_path), env


def _change_a_dozen_read_files(server: RawServer, workspace: Workspace) -> str:
    session_id = server.new_session()
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read them all."}]
    for i in range(12):
        workspace.write(f"src/m{i}.py", f"x = {i}\n")
        read = server.request(
            "compact/readFile", {"sessionId": session_id, "path": f"src/m{i}.py", "toolUseId": f"t{i}"}
        )
        messages += read_round(f"t{i}", f"src/m{i}.py", read["content"])
    server.append(session_id, messages)
    for i in range(12):
        workspace.write(f"src/m{i}.py", f"x = {i + 1}\n")
    return session_id


def test_a_dozen_hung_file_reads_starve_no_request(tmp_path: Path) -> None:
    workspace, env = _server_whose_file_reads_hang(tmp_path)
    with RawServer(workspace, env=env) as server:
        session_id = _change_a_dozen_read_files(server, workspace)
        time.sleep(1.0)  # the watcher's debounce: let all twelve re-reads start (and hang)
        assert server.request("compact/newSession", {"title": "after"}, timeout=10)["sessionId"]
        assert server.request("compact/status", {"sessionId": session_id}, timeout=10)["sessionId"] == session_id
        server.kill()


def test_a_server_whose_client_closed_stdin_exits_with_a_thread_stuck(tmp_path: Path) -> None:
    workspace, env = _server_whose_file_reads_hang(tmp_path)
    server = RawServer(workspace, env=env)
    try:
        _change_a_dozen_read_files(server, workspace)
        time.sleep(1.0)  # as above: the reads are hanging now
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        try:
            code = server.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pytest.fail("the server did not exit within 15 s of its client closing stdin")
        assert code == 0
    finally:
        server.kill()
