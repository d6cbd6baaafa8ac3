"""Round 4: imports are all or nothing, whenever the server dies; real server, SIGKILL mid-import.

On main a SIGKILL during an import could leave the session file created but empty: re-importing the log was refused
("already imported") and "Import to continue" made the empty copy current. Now the copy is written under a name
that is never listed (``<id>.partial``) and renamed once complete: after a kill the session is absent or whole, and
importing again gives the whole session. The kill is made to land inside the copy's write by a fault injected into
the server (its first write to the imported session's file stalls); one more kill lands at a time taken from a
clean import.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, words

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(300)

SESSION = "cc-5e55-kill"
STALL_WRITES = """
import os, time
_write = os.write
def write(fd, data):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        target = ""
    if "%(session)s" in target:
        open("%(marker)s", "w").close()
        time.sleep(600)  # the copy's write never ends: the test kills the server here
    return _write(fd, data)
os.write = write
"""


def big_log(workspace: Workspace) -> Path:
    log = SessionLog(cwd=str(workspace.root), session_id="5e55-kill")
    for n in range(80):
        log.say(words(1_500, f"step{n}"))
        log.user(f"go on {n}")
    return log.write(workspace.base, "big-session.jsonl")


def stalled_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    inject, marker = tmp_path / "inject", tmp_path / "stalled"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(STALL_WRITES % {"session": SESSION, "marker": marker})
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join([str(inject), env.get("PYTHONPATH", "")])
    return env, marker


def check_after_the_kill(workspace: Workspace, log: Path, messages: int, when: str) -> None:
    files = {p.name: p.stat().st_size for p in workspace.sessions.rglob("*.jsonl")}
    assert all(size > 0 for size in files.values()), f"an empty copy after a kill {when}: {files}"
    with RawServer(workspace) as server:
        listed = server.request("compact/sessions", {})
        if not files:  # no copy: importing again gives the whole session
            assert server.request("compact/importSession", {"path": str(log)})["sessionId"] == SESSION
        assert len(server.messages(SESSION)) == messages, f"after a kill {when}: {listed}"
    for session_file in workspace.sessions.rglob("*.jsonl"):
        session_file.unlink()


def test_a_kill_mid_import_leaves_no_copy_or_the_whole_one(tmp_path: Path) -> None:
    reference = Workspace(tmp_path / "reference")
    log = big_log(reference)
    with RawServer(reference) as server:
        started = time.perf_counter()
        whole = server.request("compact/importSession", {"path": str(log)})
        took = time.perf_counter() - started
    workspace = Workspace(tmp_path / "victim")
    env, marker = stalled_env(tmp_path)
    with RawServer(workspace, env=env) as server:
        server.send("compact/importSession", {"path": str(log)})
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:  # the injected stall says when it is in place
            time.sleep(0.02)
        assert marker.exists(), "the import never reached its write"
        server.kill()
    check_after_the_kill(workspace, log, whole["messages"], "inside the copy's write")
    with RawServer(workspace) as server:
        server.send("compact/importSession", {"path": str(log)})
        time.sleep(took * 0.7)  # the fault: a kill at a time a clean import is still running
        server.kill()
    check_after_the_kill(workspace, log, whole["messages"], f"at {took * 0.7:.2f} s")
