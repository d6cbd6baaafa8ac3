"""The API key never leaves the process: not in a debug log, an error, a notification or a session file.

One server runs at ``-vv --log-file`` with one key in its environment and another in ``initializationOptions``
(``apiKey``), and goes through compaction and chat against a stub that fails with messages echoing the key.
Session files are created 0600 in a 0700 directory.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from tests.support.messages_api_stub import MessagesApiStub, api_error, reply

from .crash import read_round
from .rpc import RawServer, RpcError, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

ENV_KEY = "sk-ant-api03-ENVKEY-0123456789abcdef"
SETTINGS_KEY = "sk-ant-api03-SETTINGSKEY-fedcba9876543210"
NO_RETRY = {"x-should-retry": "false"}


@pytest.mark.parametrize(
    "key_in_settings", [pytest.param(False, id="key-in-environment"), pytest.param(True, id="key-in-settings")]
)
def test_the_api_key_appears_nowhere(tmp_path: Path, key_in_settings: bool) -> None:
    key = SETTINGS_KEY if key_in_settings else ENV_KEY
    workspace = Workspace(tmp_path)
    log_file = tmp_path / "server.log"
    stderr_file = tmp_path / "stderr.log"
    with MessagesApiStub() as stub, open(stderr_file, "wb") as stderr:
        stub.push(
            api_error(401, "authentication_error", f"invalid x-api-key: {key}"),
            api_error(500, "api_error", f"upstream said {key}", headers=NO_RETRY),
        )
        stub.default = reply("<summary>fine</summary>")
        env = server_env(ANTHROPIC_BASE_URL=stub.base_url, **({} if key_in_settings else {"ANTHROPIC_API_KEY": key}))
        options = workspace.options(**({"apiKey": key} if key_in_settings else {}))
        with RawServer(
            workspace, options, env=env, args=("-vv", "--log-bodies", "--log-file", str(log_file)), stderr=stderr
        ) as server:
            session_id = server.new_session()
            server.append(session_id, [{"role": "user", "content": "Hi"}, *read_round("t1", "a.py", "x = 1\n" * 300)])
            seen: list[object] = [server.command("compact.compact", {"sessionId": session_id})]
            seen.append(server.request("compact/chat", {"sessionId": session_id, "text": "And now?"}))
            with pytest.raises(RpcError) as bad:  # an error after the key was used
                server.request("compact/readFile", {"sessionId": session_id, "path": "../outside.txt"})
            seen.append(bad.value.message)
            seen.append(server.request("compact/status", {"sessionId": session_id}))
            seen.append(server.notifications)
        sent = [r.headers.get("x-api-key") or r.headers.get("authorization", "") for r in stub.requests]
        assert sent and all(key in header for header in sent)  # the key really was in use

    assert "DEBUG" in log_file.read_text()  # the log really is at debug level
    places = {
        "log file": log_file.read_text(errors="replace"),
        "stderr": stderr_file.read_text(errors="replace"),
        "responses and notifications": str(seen),
        **{f"session file {p.name}": p.read_text(errors="replace") for p in workspace.session_files()},
    }
    leaks = {
        where: text[max(0, text.find(key) - 300) : text.find(key) + 60] for where, text in places.items() if key in text
    }
    assert leaks == {}


def test_session_files_are_private(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [{"role": "user", "content": "Hi"}])
    path = workspace.session_file(session_id)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
