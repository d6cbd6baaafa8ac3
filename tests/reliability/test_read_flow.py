"""The documented ``compact/readFile`` flow ties the read to its call: read with a ``toolUseId``, then append the
call with the path as the model wrote it (relative). The read-file state must see one file (no "ambiguous-id"),
and a later change on disk must reach the model as a diff of what it read."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from .rpc import RawServer, Workspace

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("restart", [pytest.param(False, id="same-server"), pytest.param(True, id="after-restart")])
def test_read_then_relative_call_is_one_read_and_a_change_comes_with_its_diff(tmp_path: Path, restart: bool) -> None:
    workspace = Workspace(tmp_path)
    options = workspace.options(microcompact={"keepRecent": 1, "sizeThresholdTokens": -1, "idleMinutes": -1})
    target = workspace.write("src/a.py", "alpha = 1\nbeta = 2\n")
    log_file = tmp_path / "server.log"
    server = RawServer(workspace, options, args=("-v", "--log-file", str(log_file)))
    session_id = server.new_session()
    server.append(session_id, [{"role": "user", "content": "Look at a.py"}])
    read = server.request("compact/readFile", {"sessionId": session_id, "path": "src/a.py", "toolUseId": "t1"})
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "src/a.py"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": read["content"]}
    server.append(session_id, [{"role": "assistant", "content": [call]}, {"role": "user", "content": [result]}])
    if restart:  # the read-file state and what the model saw are rebuilt from the journal
        server.stop()
        server = RawServer(workspace, options, args=("-v", "--log-file", str(log_file)))
    with server:
        status = server.request("compact/status", {"sessionId": session_id})
        files = [f for f in status["readFiles"] if f["path"].endswith("a.py")]
        assert len(files) == 1, status["readFiles"]
        assert "ambiguous-id" not in log_file.read_text(encoding="utf-8")

        target.write_text("alpha = 1\nbeta = 3\n", encoding="utf-8")
        deadline = time.monotonic() + 20
        notice = ""
        while time.monotonic() < deadline and "changed on disk" not in notice:
            last = server.messages(session_id)[-1]
            notice = " ".join(b.get("text", "") for b in last["content"])
            time.sleep(0.1)
        assert "changed on disk since you read it. Diff of the change" in notice, notice
        assert "-beta = 2" in notice and "+beta = 3" in notice

        # clearing the read's result names its one file (an id tied to two spellings of a path names none)
        later = {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "src/b.py"}}
        answer = {"type": "tool_result", "tool_use_id": "t2", "content": "b = 1\n" * 50}
        server.append(session_id, [{"role": "assistant", "content": [later]}, {"role": "user", "content": [answer]}])
        eviction = server.command("compact.microcompact", {"sessionId": session_id})
        cleared = {entry["toolUseId"]: entry for entry in eviction["cleared"]}
        assert cleared["t1"]["paths"] == ["src/a.py"], cleared


def notice_in(messages: list[dict[str, Any]]) -> str:
    return " ".join(b.get("text", "") for b in messages[-1]["content"] if b.get("type") == "text")


def test_a_pending_change_notice_survives_a_crash(tmp_path: Path) -> None:
    """The notice is journalled when it arises: a server killed before the next append loses nothing of it."""
    workspace = Workspace(tmp_path)
    target = workspace.write("src/a.py", "alpha = 1\nbeta = 2\n")
    server = RawServer(workspace)
    session_id = server.new_session()
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "src/a.py"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": target.read_text()}
    turn = [{"role": "user", "content": "Look at a.py"}, {"role": "assistant", "content": [call]}]
    server.append(session_id, [*turn, {"role": "user", "content": [result]}])
    target.write_text("alpha = 1\nbeta = 3\n", encoding="utf-8")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "changed on disk" not in notice_in(server.messages(session_id)):
        time.sleep(0.1)
    before = server.messages(session_id)
    assert "+beta = 3" in notice_in(before)
    server.kill()

    with RawServer(workspace) as again:
        assert again.messages(session_id) == before
        # and the next append folds it into history exactly once
        again.append(session_id, [{"role": "assistant", "content": "I will re-read it."}])
        after = again.messages(session_id)
        assert sum("+beta = 3" in str(m["content"]) for m in after) == 1
