"""The front process (server/compact_lsp/relay.py) as an editor meets it: ``compact/status`` answered while the
engine behind it is busy (here: stopped outright with SIGSTOP), never with an answer the engine would no longer
give, and the two processes living and dying as one server."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_lsp.lsp.protocol.frames import FRAMING_EXIT_CODE
from compact_lsp.relay_frames import ENGINE_ENV

from .crash import read_round
from .rpc import GUARD, RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(90)


ASK = [{"role": "user", "content": [{"type": "text", "text": "Read a.py."}]}]


@contextlib.contextmanager
def engine_stopped(server: RawServer) -> Iterator[int]:
    """The engine frozen (SIGSTOP) for the block: it reads and answers nothing."""
    pid = server.engine_pid
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGCONT)


def gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether process ``pid`` ended (or is a zombie nobody waits for) within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_a_busy_engine_still_answers_status_with_the_last_change(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("a.py", "a = 1\n")
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, ASK)
        for n in range(3):  # each status is asked right after its append's answer: it must show that append
            server.append(session_id, read_round(f"t{n}", "a.py", "a = 1\n"))
            expected = server.request("compact/status", {"sessionId": session_id})
        with engine_stopped(server):
            started = time.monotonic()
            answered = server.request("compact/status", {"sessionId": session_id}, timeout=5)
            assert time.monotonic() - started < 2
        assert answered == expected
        assert answered["messageCount"] == 7
        assert [f["path"] for f in answered["readFiles"]] == ["a.py"]


def test_a_settings_change_is_never_answered_from_the_old_status(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [*ASK, *read_round("t1", "a.py", "a = 1\n")])
        before = server.request("compact/status", {"sessionId": session_id})
        assert before["usage"]["contextWindow"] == 200_000
        with engine_stopped(server):
            server.notify("workspace/didChangeConfiguration", {"settings": {"compactLsp": {"contextWindow": 100_000}}})
            pending = server.send("compact/status", {"sessionId": session_id})
            time.sleep(0.5)
            assert not server.answered(pending)  # the front waits for the engine to have taken the change
        after = server.wait(pending)
        assert after["usage"]["contextWindow"] == 100_000
        with engine_stopped(server):  # and the new answer is the front's again
            assert server.request("compact/status", {"sessionId": session_id}, timeout=5) == after


def test_what_the_engine_refuses_the_front_does_not_answer(tmp_path: Path) -> None:
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


def test_the_engine_goes_with_its_front_and_the_front_with_its_engine(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    server = RawServer(workspace)
    engine = server.engine_pid
    os.kill(server.proc.pid, signal.SIGKILL)  # the editor's process killed outright: no engine left behind
    server.proc.wait(timeout=GUARD)
    assert gone(engine)

    server = RawServer(workspace)
    session_id = server.new_session()
    os.kill(server.engine_pid, signal.SIGKILL)  # the engine crashed: the editor sees its server exit
    assert server.proc.wait(timeout=GUARD) == 128 + signal.SIGKILL
    with RawServer(workspace) as again:  # and the session is free for the next server
        assert again.request("compact/status", {"sessionId": session_id})["sessionId"] == session_id


def test_a_closed_stdin_or_an_unreadable_frame_ends_both(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    server = RawServer(workspace)
    engine = server.engine_pid
    assert server.proc.stdin is not None
    server.proc.stdin.close()
    assert server.proc.wait(timeout=GUARD) == 0
    assert gone(engine)

    server = RawServer(workspace)
    engine = server.engine_pid
    assert server.proc.stdin is not None
    server.proc.stdin.write(b"Content-Length: lots\r\n\r\n{}")
    server.proc.stdin.flush()
    assert server.proc.wait(timeout=GUARD) == FRAMING_EXIT_CODE
    assert gone(engine)


PROBE = (
    "import os, sys; from compact_lsp.relay import engine_started; print(engine_started(), os.environ.get(sys.argv[1]))"
)


@pytest.mark.parametrize(
    ("parent", "engine"), [pytest.param(True, "True", id="its-front"), pytest.param(False, "False", id="not-its-front")]
)
def test_the_engine_leaves_no_mark_of_its_front_to_what_it_starts(parent: bool, engine: str) -> None:
    """The front marks its engine's environment; the engine takes the mark out, so a tool or hook it starts is not
    taken for an engine (and an engine whose front is gone is told so)."""
    env = {**os.environ, ENGINE_ENV: str(os.getpid() if parent else 1)}
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, ENGINE_ENV], capture_output=True, text=True, env=env, check=True, timeout=GUARD
    )
    assert probe.stdout.split() == [engine, "None"]
