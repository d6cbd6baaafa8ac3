"""Loading never loses a session: a record that is valid JSON but cannot be applied is skipped and reported.

Sessions are written by a real server, then one record of each is damaged the way an older version, a hand edit
or a disk error might (wrong types, a rewrite of a message that does not exist, an undo with nothing to undo, a
read without content, a timestamp that is not a number), and a fresh server loads them all. Each must stay listed
with ``damaged`` and the count, keep every good record, give a conversation the API accepts (also when the skipped
line held a tool_result in the middle), take new appends, and load the same again after another restart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.conversation.validate import INTERRUPTED_RESULT, validate

from .crash import read_round
from .rpc import RawServer, Workspace

pytestmark = pytest.mark.timeout(120)

EVICTION = {"trigger": "forced", "tokensBefore": 10, "tokensAfter": 5, "cleared": [], "protected": []}

BAD_RECORDS: dict[str, dict[str, Any]] = {
    "messages-not-a-list": {"type": "append", "messages": "hello", "at": 1.0},
    "content-wrong-type": {"type": "append", "messages": [{"role": "user", "content": 5}], "at": 1.0},
    "rewrite-bad-index": {
        "type": "rewrite",
        "reason": "microcompaction",
        "changes": [{"index": 999, "message": {"role": "user", "content": "x"}}],
        "eviction": EVICTION,
        "at": 1.0,
    },
    "undo-nothing-to-undo": {"type": "undo", "boundaryId": "cmp_none", "at": 1.0},
    "read-without-content": {"type": "read", "path": "/ws/src/a.py", "toolUseId": None, "at": 1.0},
    "timestamp-not-a-number": {"type": "deny", "path": "/ws/secret", "at": "yesterday"},
    "notice-wrong-type": {"type": "notice", "text": ["not", "text"], "at": 1.0},
}


def conversation() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Tidy up the two modules."},
        *read_round("toolu_a", "src/a.py", "def a():\n    return 1\n"),
        *read_round("toolu_b", "src/b.py", "def b():\n    return 2\n"),
        {"role": "assistant", "content": [{"type": "text", "text": "Both read."}]},
    ]


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def damage(path: Path, shape: str) -> None:
    lines = lines_of(path)
    if shape == "tool-result-line":
        # the line holding toolu_a's result gets a timestamp that is not a number: skipped, the call unanswered
        index = next(i for i, line in enumerate(lines) if '"tool_use_id":"toolu_a"' in line)
        record = json.loads(lines[index])
        record["at"] = "noon"
        lines[index] = json.dumps(record) + "\n"
    else:
        lines.insert(2, json.dumps(BAD_RECORDS[shape]) + "\n")  # mid-file: the records after it must still load
    path.write_text("".join(lines), encoding="utf-8")


SHAPES = [*BAD_RECORDS, "tool-result-line"]


def test_a_session_with_a_bad_record_stays_listed_damaged_and_valid(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    ids: dict[str, str] = {}
    with RawServer(workspace) as server:
        for shape in SHAPES:
            ids[shape] = server.new_session(shape)
            for message in conversation():  # one record per message: a middle line can hold a tool_result
                server.append(ids[shape], [message])
        before = server.messages(ids[SHAPES[0]])
    for shape, session_id in ids.items():
        damage(workspace.session_file(session_id), shape)

    with RawServer(workspace) as server:
        listed = {item["sessionId"]: item for item in server.request("compact/sessions", {})}
        for shape, session_id in ids.items():
            assert session_id in listed, f"{shape}: the session vanished"
            assert listed[session_id]["damaged"] is True, shape
            assert listed[session_id]["damagedRecords"] == 1, shape
            messages = server.messages(session_id)
            assert validate(messages) == [], shape
            if shape == "tool-result-line":
                answer = messages[2]["content"][0]
                assert answer["tool_use_id"] == "toolu_a" and answer["is_error"] is True
                assert answer["content"] == INTERRUPTED_RESULT
                assert messages[3:] == before[3:]  # everything after the skipped line is kept
            else:
                assert messages == before, shape
            server.append(session_id, [{"role": "user", "content": "Go on."}])
        after = {session_id: server.messages(session_id) for session_id in ids.values()}
        warnings = [n["message"] for n in server.notifications_of("window/showMessage")]
        assert sum("recovered a damaged session file" in w for w in warnings) == len(SHAPES)

    with RawServer(workspace) as server:  # the repair was journalled: the same conversation loads again
        listed = {item["sessionId"]: item for item in server.request("compact/sessions", {})}
        for session_id, messages in after.items():
            assert listed[session_id]["damagedRecords"] == 1
            assert server.messages(session_id) == messages
