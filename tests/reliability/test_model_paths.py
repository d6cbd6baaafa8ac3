"""Round 4: a model's unusable path is that tool call's error, and the turn goes on; real server, loopback stub.

On main a ``read_file`` (or ``write_file``, ``edit_file``, ``list_directory``, ``grep``) whose path held a NUL byte
or ran past 4,096 bytes ended the whole chat turn with -32602, as though the editor had sent bad params, and the
tool calls after it in the same answer never ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.messages_api_stub import MessagesApiStub, StubResponse, reply

from compact_lsp.engine.conversation.validate import validate

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

API_KEY = "sk-ant-api03-reliability-test-key-000"
LONG = "src/" + "x" * 5000 + ".py"
CALLS = [
    ("read_file", {"file_path": "src/a\x00.py"}),
    ("read_file", {"file_path": LONG}),
    ("write_file", {"file_path": "out\x00.txt", "content": "hello"}),
    ("edit_file", {"file_path": LONG, "old_string": "a", "new_string": "b"}),
    ("list_directory", {"path": "src\x00"}),
    ("grep", {"pattern": "x", "path": LONG}),
]


@pytest.fixture
def stub() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as api:
        yield api


def start(workspace: Workspace, stub: MessagesApiStub) -> RawServer:
    env = server_env(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=stub.base_url)
    return RawServer(workspace, workspace.options(agent={"maxRetries": 0, "timeout": 30}), env=env)


def test_unusable_tool_paths_are_the_tools_errors_and_the_turn_goes_on(tmp_path: Path, stub: MessagesApiStub) -> None:
    workspace = Workspace(tmp_path)
    workspace.write("src/a.py", "VALUE = 42\n")
    blocks = [
        {"type": "tool_use", "id": f"toolu_bad{n}", "name": name, "input": tool_input}
        for n, (name, tool_input) in enumerate(CALLS)
    ]
    blocks.append({"type": "tool_use", "id": "toolu_good", "name": "read_file", "input": {"file_path": "src/a.py"}})
    with start(workspace, stub) as server:
        session_id = server.new_session()
        stub.push(StubResponse(content=blocks, stop_reason="tool_use"), reply("Done."))
        result = server.request("compact/chat", {"sessionId": session_id, "text": "Look around"})
        assert result["stopReason"] == "end_turn", result
        messages = server.messages(session_id)
        assert validate(messages) == []
        results = {b["tool_use_id"]: b for b in messages[2]["content"] if b["type"] == "tool_result"}
        for n, (name, _) in enumerate(CALLS):
            bad = results[f"toolu_bad{n}"]
            assert bad.get("is_error") is True, bad
            assert "cannot name a file" in str(bad["content"]) and name in str(bad["content"])
        assert "VALUE = 42" in str(results["toolu_good"]["content"])
        assert not results["toolu_good"].get("is_error")
        assert not (workspace.root / "out").exists()
        assert messages[-1]["content"][0]["text"] == "Done."
    with start(workspace, stub) as server:  # and the session reloads and goes on
        assert validate(server.messages(session_id)) == []
        stub.push(reply("Again."))
        assert server.request("compact/chat", {"sessionId": session_id, "text": "More"})["stopReason"] == "end_turn"
