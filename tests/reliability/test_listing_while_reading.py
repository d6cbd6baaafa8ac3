"""Round 4: the session list answers at once whatever is being read; real server, a stalled first read injected.

On main, with one 291 MiB Claude Code transcript in the followed folder, ``compact/sessions`` got no answer for 30 s
after start (it waited for the followed session's first read, under that session's lock). Here the first read of a
followed transcript is made to take 8 s (a fault injected into the server); the list must answer within a second
with what is ready, and list the followed session once its read is done.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog

from compact_lsp.agents.claude_code.live import project_directory

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

SLOW_FIRST_READ = """
import time
from compact_lsp.agents.claude_code import live
_update = live.FollowedSession.update
_first = []
def update(self):
    if not _first:
        _first.append(1)
        time.sleep(%(seconds)s)  # a huge transcript's first read
    return _update(self)
live.FollowedSession.update = update
"""


def test_the_session_list_answers_within_a_second_while_a_transcript_is_read(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "w")
    projects = tmp_path / "projects"
    folder = project_directory(str(projects), str(workspace.root))
    folder.mkdir(parents=True)
    log = SessionLog(cwd=str(workspace.root), session_id="5e55-slow")
    log.user("hello")
    log.say("hi")
    log.write(folder, "5e55-slow.jsonl")
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(SLOW_FIRST_READ % {"seconds": 8})
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join([str(inject), env.get("PYTHONPATH", "")])
    options = workspace.options(claudeCode={"projectsDir": str(projects), "follow": True})
    with RawServer(workspace, options, env=env) as server:
        own = server.new_session("mine")
        started = time.perf_counter()
        listed = server.request("compact/sessions", {}, timeout=30)
        took = time.perf_counter() - started
        assert took < 1.0, f"the list took {took:.1f} s"
        assert own in [item["sessionId"] for item in listed]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # each listing round trip is the wait
            listed = server.request("compact/sessions", {})
            if any(item["sessionId"].endswith("5e55-slow") for item in listed):
                break
        assert any(item["sessionId"].endswith("5e55-slow") for item in listed), json.dumps(listed)[:300]
