"""One writer per session across processes: two real servers on one workspace and one session directory (what
two editor windows on one folder start).

The server that writes a session first holds its OS lock. The other one lists and reads the session, follows
it as the owner appends (its ``compact/didChangeUsage`` and status move), and refuses its own writes with a
RequestFailed naming the owner's process and offering a new session. The file never interleaves: it is exactly
the owner's appends, and validates. When the owner exits, the follower may write, and it says so to its editor at
once (``compact/didChangeOpenElsewhere``), as it says when another server takes the session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.support.protocol_schema import protocol_schema

from compact_lsp.engine.conversation.validate import validate
from compact_lsp.store.session_store import parse_lines

from .crash import read_round
from .rpc import RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(120)

REQUEST_FAILED = -32803


def turn(k: int) -> list[dict[str, Any]]:
    return [{"role": "user", "content": f"Question {k}?"}, {"role": "assistant", "content": f"Answer {k}."}]


def test_a_second_server_follows_read_only_and_names_the_owner(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    owner = RawServer(workspace)
    follower = RawServer(workspace)
    try:
        session_id = owner.new_session("shared")
        owner.append(session_id, turn(0))

        listed = [item["sessionId"] for item in follower.request("compact/sessions", {})]
        assert session_id in listed
        assert follower.messages(session_id) == owner.messages(session_id)

        with pytest.raises(RpcError) as refused:
            follower.append(session_id, turn(1))
        assert refused.value.code == REQUEST_FAILED
        assert f"process {owner.proc.pid}" in refused.value.message
        assert "compact/newSession" in refused.value.message
        assert refused.value.data["kind"] == "read_only"
        assert refused.value.data["owner"]["pid"] == owner.proc.pid
        workspace.write("src/b.py", "b = 2\n")
        with pytest.raises(RpcError, match=f"process {owner.proc.pid}"):  # a served read is journalled too
            follower.request("compact/readFile", {"sessionId": session_id, "path": "src/b.py"})

        # the owner appends: the follower applies it from the file and tells its client
        read_a = read_round("toolu_1", "src/a.py", "a = 1\n" * 200)
        owner.append(
            session_id, [{"role": "user", "content": "Read a.py"}, *read_a, {"role": "assistant", "content": "Ok."}]
        )
        total = owner.request("compact/status", {"sessionId": session_id})["usage"]["total"]
        follower.wait_for_notification(
            "compact/didChangeUsage", lambda p: p["sessionId"] == session_id and p["usage"]["total"] == total
        )
        assert follower.messages(session_id) == owner.messages(session_id)
        assert follower.request("compact/status", {"sessionId": session_id})["messageCount"] == 6

        # the follower works on in a session of its own
        own = follower.new_session("mine")
        follower.append(own, turn(3))

        path = workspace.session_file(session_id)
        records, report = parse_lines(path.read_bytes(), path)
        assert report.clean
        assert [r["type"] for r in records] == ["header", "append", "append"]  # nothing of the follower's
        assert validate(owner.messages(session_id)) == []
    finally:
        owner.stop()

    try:  # the owner is gone (its lock with it): the follower may write now, on top of everything it followed
        follower.append(session_id, turn(4))
        assert len(follower.messages(session_id)) == 8
    finally:
        follower.stop()
    with RawServer(workspace) as fresh:
        messages = fresh.messages(session_id)
        assert len(messages) == 8 and validate(messages) == []


def test_the_follower_tells_its_editor_at_once_who_writes_the_session(tmp_path: Path) -> None:
    """A second window showed the chat writable until its next listing though the first one wrote it, and read-only
    after the first one closed: nothing told it. Its server now watches the session's lock and tells it as another
    server takes the session or lets it go, whether that window closes or dies."""
    said = "compact/didChangeOpenElsewhere"
    workspace = Workspace(tmp_path)
    owner = RawServer(workspace)
    follower = RawServer(workspace)
    taker: RawServer | None = None
    try:
        session_id = owner.new_session("shared")
        owner.append(session_id, turn(0))
        follower.request("compact/selectSession", {"sessionId": session_id})  # the second window shows it

        def held_by(server: RawServer | None) -> Callable[[Any], bool]:
            def check(params: Any) -> bool:
                protocol_schema().check_notification(said, params)
                if params["sessionId"] != session_id:
                    return False
                return params.get("openElsewhere") == ({"pid": server.proc.pid} if server is not None else None)

            return check

        owner.stop()  # the first window closes: the session is the second one's to write
        follower.wait_for_notification(said, held_by(None), timeout=10)
        taker = RawServer(workspace)
        taker.append(session_id, turn(1))  # a third window writes it first: read-only again, that one named
        follower.wait_for_notification(said, held_by(taker), timeout=10)
        [listed] = [s for s in follower.request("compact/sessions", {}) if s["sessionId"] == session_id]
        assert listed["openElsewhere"] == {"pid": taker.proc.pid}  # the notification and the listing agree
        follower.notifications.clear()  # what was said so far: the next "nobody else" must be about this death
        taker.kill()  # and dies: the OS lets go of its lock, and the second window hears it
        follower.wait_for_notification(said, held_by(None), timeout=10)
        follower.append(session_id, turn(2))  # it may write now
        assert len(follower.messages(session_id)) == 6
    finally:
        for server in (owner, taker, follower):
            if server is not None:
                server.stop()


def test_a_session_taken_before_the_follower_loads_it_is_said_as_it_loads(tmp_path: Path) -> None:
    """The first window wrote the session as the second one opened it: the lock was taken before the second one
    watched it, so no change of the lock would ever tell it; it says who holds it as it loads the session."""
    said = "compact/didChangeOpenElsewhere"
    workspace = Workspace(tmp_path)
    owner = RawServer(workspace)
    follower = RawServer(workspace)
    try:
        session_id = owner.new_session("shared")
        owner.append(session_id, turn(0))  # the owner holds the lock
        follower.request("compact/selectSession", {"sessionId": session_id})

        def by_owner(params: Any) -> bool:
            protocol_schema().check_notification(said, params)
            return params == {"sessionId": session_id, "openElsewhere": {"pid": owner.proc.pid}}

        follower.wait_for_notification(said, by_owner, timeout=10)
    finally:
        for server in (owner, follower):
            server.stop()
