"""``compact/status`` as an editor meets it over stdio, one server process: right after a change and right after a
settings change, what the server would measure now; a status the server refuses is refused, answered at once or
not. The invariant behind it is held in-process by tests/lsp/sessions/test_snapshots.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from .crash import read_round
from .rpc import RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(90)


ASK = [{"role": "user", "content": [{"type": "text", "text": "Read a.py."}]}]


def test_a_status_right_after_each_append_shows_that_append(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("a.py", "a = 1\n")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, ASK)
        for n in range(3):  # each status is asked right after its append's answer: it must show that append
            server.append(session_id, read_round(f"t{n}", "a.py", "a = 1\n"))
            status = server.request("compact/status", {"sessionId": session_id})
            assert status["messageCount"] == 3 + 2 * n
        assert [f["path"] for f in status["readFiles"]] == ["a.py"]


def test_a_status_right_after_a_settings_change_shows_the_new_settings(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [*ASK, *read_round("t1", "a.py", "a = 1\n")])
        before = server.request("compact/status", {"sessionId": session_id})
        assert before["usage"]["contextWindow"] == 200_000
        server.notify("workspace/didChangeConfiguration", {"settings": {"compactLsp": {"contextWindow": 100_000}}})
        after = server.request("compact/status", {"sessionId": session_id})
        assert after["usage"]["contextWindow"] == 100_000
        assert after["usage"]["autoCompactThreshold"] < before["usage"]["autoCompactThreshold"]


def test_a_status_the_server_refuses_is_refused(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [*ASK, *read_round("t1", "a.py", "a = 1\n")])
        server.request("compact/status", {"sessionId": session_id})
        body = b'{"jsonrpc":"2.0","id":900,"method":"compact/status","params":{"sessionId":"%s","x":NaN}}'
        server.write_frame(body % session_id.encode())
        with pytest.raises(RpcError, match="not a finite number"):
            server.wait(900)
        server.request("shutdown")
        with pytest.raises(RpcError, match="shutting down"):  # after shutdown, a request is refused, status too
            server.request("compact/status", {"sessionId": session_id}, timeout=10)
