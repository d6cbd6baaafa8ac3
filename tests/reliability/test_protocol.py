"""Clear errors on the wire, through the real server process: every request gets an answer or the server exits
at once with a log line; the exit code follows the LSP spec; logs are private and carry no message bodies unless
asked to.
"""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.messages import MAX_NESTING
from compact_lsp.lsp.app import create_server
from compact_lsp.lsp.protocol.frames import FRAMING_EXIT_CODE

from .rpc import RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(60)

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
PARSE_ERROR = -32700


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"n": value}
    return value


def deep_call(depth: int) -> list[dict[str, Any]]:
    # the message is level 1, its content list 2, the block 3, the input 4: the input's own depth is depth - 3
    call = {"type": "tool_use", "id": "toolu_deep", "name": "bash", "input": nested(depth - 3)}
    return [{"role": "user", "content": "Go"}, {"role": "assistant", "content": [call]}]


def test_nesting_past_the_documented_depth_is_refused_and_every_request_is_answered(tmp_path: Path) -> None:
    with RawServer(Workspace(tmp_path)) as server:
        session_id = server.new_session()
        with pytest.raises(RpcError) as refused:
            server.append(session_id, deep_call(350))
        assert refused.value.code == INVALID_PARAMS
        assert f"nested more than {MAX_NESTING} levels deep" in refused.value.message
        assert server.messages(session_id) == []  # answered (on main: silence, the client waited forever)
        server.append(session_id, deep_call(MAX_NESTING))  # at the limit: accepted, stored, sent back
        assert len(server.messages(session_id)) == 2


def test_an_answer_that_cannot_be_serialised_becomes_an_error_answer() -> None:
    """No request can produce one now (appends are bounded), so the fallback is driven directly."""
    server = create_server()
    protocol = server.protocol
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

        def close(self) -> None:
            return None

    protocol.set_writer(Writer())
    protocol._send_response(7, result=nested(5_000))
    assert len(written) == 1
    assert b'"id": 7' in written[0] and b'"error"' in written[0] and b"could not serialise" in written[0]


def exit_code(server: RawServer) -> int:
    return server.proc.wait(timeout=15)


def test_exit_without_shutdown_exits_with_code_1(tmp_path: Path) -> None:
    server = RawServer(Workspace(tmp_path))
    server.notify("exit", None)
    assert exit_code(server) == 1
    server.stop()


def test_shutdown_then_exit_exits_with_code_0_and_logs_no_error(tmp_path: Path) -> None:
    server = RawServer(Workspace(tmp_path), stderr=subprocess.PIPE)
    server.request("shutdown", None)
    server.notify("exit", None)
    assert exit_code(server) == 0
    assert server.proc.stderr is not None
    log = server.proc.stderr.read().decode()
    assert "ERROR" not in log, log  # a polite exit is not a lost connection
    server.stop()


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param(b"Content-Length: twelve\r\n\r\n{}", id="not-a-number"),
        pytest.param(b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}", id="missing"),
        pytest.param(b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}\r\n\r\n', id="no-header-at-all"),
    ],
)
def test_a_frame_with_a_bad_content_length_ends_the_server_at_once_with_a_log_line(
    tmp_path: Path, frame: bytes
) -> None:
    server = RawServer(Workspace(tmp_path), stderr=subprocess.PIPE)
    assert server.proc.stdin is not None
    server.proc.stdin.write(frame)
    server.proc.stdin.flush()
    assert exit_code(server) == FRAMING_EXIT_CODE
    assert server.proc.stderr is not None
    assert b"so the editor can restart the server" in server.proc.stderr.read()
    server.stop()


MARKER = "SECRET_FILE_BODY_1f6e"


@pytest.mark.parametrize(
    ("args", "bodies"),
    [
        pytest.param(("-v",), False, id="info"),
        pytest.param(("-vv",), False, id="debug"),
        pytest.param(("-vv", "--log-bodies"), True, id="debug-with-log-bodies"),
    ],
)
def test_logs_are_private_and_hold_message_bodies_only_when_asked(
    tmp_path: Path, args: tuple[str, ...], bodies: bool
) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("src/secret.py", f"token = '{MARKER}'\n")
    log_file = tmp_path / "server.log"
    with RawServer(workspace, args=(*args, "--log-file", str(log_file))) as server:
        session_id = server.new_session()
        server.request("compact/readFile", {"sessionId": session_id, "path": "src/secret.py"})
        server.append(session_id, [{"role": "user", "content": f"what is {MARKER}?"}])
        server.messages(session_id)
    assert stat.S_IMODE(log_file.stat().st_mode) == 0o600
    text = log_file.read_text(encoding="utf-8")
    assert (MARKER in text) is bodies
    if bodies:
        assert "--log-bodies: message bodies (file contents, conversation) are logged" in text


DEEP = 980
"""Deeper than Python's json can parse inside the server (its recursion limit is 1,000)."""


def deep_frame(msg_id: Any, *, id_first: bool = True) -> bytes:
    params = '{"sessionId": "x", "deep": ' + "[" * DEEP + "]" * DEEP + "}"
    head, tail = f'"id": {json.dumps(msg_id)}', f'"jsonrpc": "2.0", "method": "compact/status", "params": {params}'
    return ("{" + (f"{head}, {tail}" if id_first else f"{tail}, {head}") + "}").encode()


@pytest.mark.parametrize("id_first", [pytest.param(True, id="id-first"), pytest.param(False, id="id-last")])
def test_a_frame_nested_too_deep_to_parse_is_answered_with_its_id_and_the_stream_stays_in_sync(
    tmp_path: Path, id_first: bool
) -> None:
    with RawServer(Workspace(tmp_path)) as server:
        server.write_frame(deep_frame(9001, id_first=id_first))
        with pytest.raises(RpcError) as refused:
            server.wait(9001, timeout=15)  # on main: never answered, the client waited forever
        assert refused.value.code == INVALID_REQUEST
        assert "nested too deep" in refused.value.message
        assert server.request("compact/sessions", {}) is not None  # the next frame is read as a frame


def test_an_escaped_id_key_in_a_frame_nested_too_deep_is_answered(tmp_path: Path) -> None:
    """Round 4: ``"i\\u0064"`` is the key ``id``; on main such a frame was never answered."""
    with RawServer(Workspace(tmp_path)) as server:
        server.write_frame(deep_frame(9002, id_first=True).replace(b'"id"', b'"i\\u0064"', 1))
        with pytest.raises(RpcError) as refused:
            server.wait(9002, timeout=15)
        assert refused.value.code == INVALID_REQUEST
        assert server.request("compact/sessions", {}) is not None


def test_a_frame_whose_id_cannot_be_read_gets_a_parse_error_and_the_stream_stays_in_sync(tmp_path: Path) -> None:
    with RawServer(Workspace(tmp_path)) as server:
        server.write_frame(b'{"jsonrpc": "2.0", "id": ' + b"[" * DEEP + b"]" * DEEP + b', "method": "compact/status"}')
        server.write_frame(b'{"jsonrpc": "2.0", "id": 5, "method": "compact/status", "params": {"sessionId": ')
        with pytest.raises(RpcError) as refused:  # not JSON, but its id can be read: answered
            server.wait(5, timeout=15)
        assert refused.value.code == PARSE_ERROR
        assert [e["code"] for e in null_id_errors(server)] == [PARSE_ERROR]  # the deep id: a parse error
        assert server.request("compact/sessions", {}) is not None


def null_id_errors(server: RawServer) -> list[dict[str, Any]]:
    return [r["error"] for r in list(server.null_id_responses) if "error" in r]


@pytest.mark.parametrize(
    ("number", "field"),
    [
        pytest.param("NaN", "params.messages[1].content[0].input.offset", id="nan"),
        pytest.param("Infinity", "params.messages[1].content[0].input.offset", id="infinity"),
        pytest.param("-Infinity", "params.messages[1].content[0].input.offset", id="minus-infinity"),
        pytest.param("1e400", "params.messages[1].content[0].input.offset", id="1e400"),
    ],
)
def test_a_non_finite_number_is_refused_at_the_wire_naming_the_field(tmp_path: Path, number: str, field: str) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        file = workspace.session_file(session_id)
        before = file.read_bytes()
        call = '{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.py", "offset": N}}'
        body = (
            (
                '{"jsonrpc": "2.0", "id": 77, "method": "compact/append", "params": {"sessionId": "SID", "messages": '
                '[{"role": "user", "content": "go"}, {"role": "assistant", "content": [CALL]}]}}'
            )
            .replace("SID", session_id)
            .replace("CALL", call.replace("N", number))
        )
        server.write_frame(body.encode())
        with pytest.raises(RpcError) as refused:  # on main: accepted, journalled, and sent back as NaN
            server.wait(77)
        assert refused.value.code == INVALID_PARAMS
        assert field in refused.value.message and "not a finite number" in refused.value.message
        assert file.read_bytes() == before
        assert server.messages(session_id) == []


@pytest.mark.parametrize("verbose", [False, True], ids=["default", "info"])
def test_a_refused_request_is_logged_as_one_line_not_as_a_crash(tmp_path: Path, verbose: bool) -> None:
    """An unknown session is the user's to fix (the answer says how): the editor's output shows no traceback."""
    log_file = tmp_path / "server.log"
    args = ("-v", "--log-file", str(log_file)) if verbose else ("--log-file", str(log_file))
    with RawServer(Workspace(tmp_path), args=args) as server, pytest.raises(RpcError, match="unknown session"):
        server.request("compact/status", {"sessionId": "no-such-session"})
    text = log_file.read_text(encoding="utf-8")
    assert "Traceback" not in text and "ERROR" not in text, text
    refused = [line for line in text.splitlines() if "answered with an error" in line]
    if verbose:
        assert len(refused) == 1 and "INFO" in refused[0] and "unknown session" in refused[0], text
    else:
        assert refused == [], text
