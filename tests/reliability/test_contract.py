"""The contract says what the server does, through the real server process.

``compact.undo`` during a compaction waits for it, like every other request (docs/protocol.md), and then undoes
the compaction that just finished: the conversation is exactly what it was before (on main it was refused as
``in_progress`` while the docs said requests wait). A forced microcompaction that clears nothing answers every
field the schema gives its result.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.support.protocol_schema import protocol_schema

from .crash import base_conversation
from .rpc import RawServer, RpcError, Workspace

pytestmark = pytest.mark.timeout(90)

REQUEST_FAILED = -32803


def test_undo_during_a_compaction_waits_for_it_and_restores_the_conversation(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    options = workspace.options(preCompactCommand="sleep 1")  # the compaction takes a second: undo lands inside
    with RawServer(workspace, options) as server:
        session_id = server.new_session()
        server.append(session_id, base_conversation(workspace, rounds=12))
        before = server.messages(session_id)
        compacting = server.send("workspace/executeCommand", {"command": "compact.compact",
                                                              "arguments": [{"sessionId": session_id}]})  # fmt: skip
        # pipelined: the undo arrives while the compaction has claimed the session and waits for its progress token
        undo = server.command("compact.undo", {"sessionId": session_id})
        assert server.wait(compacting)["changed"] is True
        assert undo["changed"] is True and undo["restored"] is True, undo
        schema_checked("compact.undo", undo)
        assert server.messages(session_id) == before


def test_a_microcompaction_that_clears_nothing_answers_every_documented_field(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
        server.append(session_id, [{"role": "user", "content": "hi"}])
        result = server.command("compact.microcompact", {"sessionId": session_id})
        assert result["changed"] is False and result["kind"] == "nothing_to_clear"
        for field in ("tokensSaved", "evictedReadPaths", "unresolved", "mediaCleared", "createdAt"):
            assert field in result, field
        assert result["tokensSaved"] == 0 and result["evictedReadPaths"] == [] and result["mediaCleared"] == 0
        schema_checked("compact.microcompact", result)
        nothing = server.command("compact.undo", {"sessionId": session_id})
        assert nothing["kind"] == "nothing_to_undo"
        schema_checked("compact.undo", nothing)


def schema_checked(command: str, result: object) -> None:
    """The result as docs/protocol.schema.json gives it (raises ``ProtocolMismatch`` naming the field)."""
    protocol_schema().check_result("workspace/executeCommand", {"command": command}, result)


def test_a_directory_where_the_session_lock_should_be_is_an_error_naming_it(tmp_path: Path) -> None:
    """On main every append failed "unexpectedly" (IsADirectoryError, -32603)."""
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
    lock = workspace.session_file(session_id).with_suffix(".lock")
    lock.unlink()
    lock.mkdir()
    with RawServer(workspace) as server:
        with pytest.raises(RpcError) as refused:
            server.append(session_id, [{"role": "user", "content": "hi"}])
        assert refused.value.code == REQUEST_FAILED
        assert str(lock) in refused.value.message and "Remove or rename" in refused.value.message
        assert "failed unexpectedly" not in refused.value.message


@pytest.mark.parametrize("kind", ["fifo", "hard-link"])
def test_a_lock_path_that_is_no_regular_file_of_its_own_is_refused_and_nothing_is_truncated(
    tmp_path: Path, kind: str
) -> None:
    """Round 4. On main a FIFO there failed -32603 (``ftruncate``: EINVAL) and a hard link to a user's file got
    that file truncated to the owner JSON."""
    workspace = Workspace(tmp_path)
    with RawServer(workspace) as server:
        session_id = server.new_session()
    lock = workspace.session_file(session_id).with_suffix(".lock")
    lock.unlink()
    users = workspace.write("notes.md", "the user's notes\n" * 20)
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        os.link(users, lock)
    with RawServer(workspace) as server:
        with pytest.raises(RpcError) as refused:
            server.append(session_id, [{"role": "user", "content": "hi"}])
        assert refused.value.code == REQUEST_FAILED, refused.value.message
        assert str(lock) in refused.value.message and "Remove or rename" in refused.value.message
        assert server.command("compact.status", {"sessionId": session_id})  # still serving
    assert users.read_text() == "the user's notes\n" * 20
