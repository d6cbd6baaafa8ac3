"""``compact/chat`` when the model side misbehaves, and after a crash mid tool call; real server, loopback stub.

Every model-side failure ends the turn as ``stopReason: "error"`` with an ``errorKind`` (never a JSON-RPC error),
keeping the user's question and nothing of the broken answer. A journal that ends on an unanswered tool_use (the
server died while the tool ran) is answered as interrupted by the next chat turn, which keeps the user's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, StubResponse, malformed_sse, not_a_stream, reply

from compact_lsp.engine.conversation.validate import INTERRUPTED_RESULT, validate

from .rpc import RawServer, Workspace, server_env

pytestmark = pytest.mark.timeout(120)

API_KEY = "sk-ant-api03-reliability-test-key-000"


@pytest.fixture
def stub() -> Iterator[MessagesApiStub]:
    with MessagesApiStub() as api:
        yield api


def start(workspace: Workspace, stub: MessagesApiStub) -> RawServer:
    env = server_env(ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=stub.base_url)
    return RawServer(workspace, workspace.options(agent={"maxRetries": 0, "timeout": 30}), env=env)


NOT_AN_OBJECT = StubResponse(
    content=[{"type": "tool_use", "id": "toolu_list", "name": "read_file", "input": ["src/a.py"]}],
    stop_reason="tool_use",
)

MODEL_FAILURES = [
    pytest.param(malformed_sse(), "bad_response", id="malformed-sse"),
    pytest.param(not_a_stream(), "bad_response", id="200-not-a-stream"),
    pytest.param(NOT_AN_OBJECT, "bad_response", id="tool-input-not-an-object"),
]


@pytest.mark.parametrize(("failure", "kind"), MODEL_FAILURES)
def test_a_model_side_failure_ends_the_turn_as_an_error_with_its_kind(
    tmp_path: Path, stub: MessagesApiStub, failure: StubResponse, kind: str
) -> None:
    with start(Workspace(tmp_path), stub) as server:
        session_id = server.new_session()
        stub.push(failure)
        result = server.request("compact/chat", {"sessionId": session_id, "text": "Read a.py"})
        assert result["stopReason"] == "error"
        assert result["errorKind"] == kind
        assert result["error"]
        events = [e for e in server.notifications_of("compact/chatEvent") if e["kind"] == "error"]
        assert [e.get("errorKind") for e in events] == [kind]
        messages = server.messages(session_id)
        assert [m["role"] for m in messages] == ["user"]
        assert "Read a.py" in str(messages[0]["content"])
        assert validate(messages) == []
        stub.push(reply("Done."))  # and the session goes on
        assert server.request("compact/chat", {"sessionId": session_id, "text": "Again"})["stopReason"] == "end_turn"


def test_the_first_chat_after_a_crash_mid_tool_call_answers_it_and_keeps_the_text(
    tmp_path: Path, stub: MessagesApiStub
) -> None:
    workspace = Workspace(tmp_path)
    call: dict[str, Any] = {"type": "tool_use", "id": "toolu_running", "name": "bash", "input": {"command": "make"}}
    with start(workspace, stub) as server:
        session_id = server.new_session()
        server.append(session_id, [{"role": "user", "content": "Build it"}, {"role": "assistant", "content": [call]}])
        server.kill()  # the server died while the tool ran: the journal ends on the unanswered call
    with start(workspace, stub) as server:
        stub.push(reply("The build was interrupted; starting again."))
        result = server.request("compact/chat", {"sessionId": session_id, "text": "What happened?"})
        assert result["stopReason"] == "end_turn"
        messages = server.messages(session_id)
        assert validate(messages) == []
        answer = messages[2]["content"]
        assert answer[0] == {
            "type": "tool_result",
            "tool_use_id": "toolu_running",
            "content": INTERRUPTED_RESULT,
            "is_error": True,
        }
        assert answer[1:] == [{"type": "text", "text": "What happened?"}]
        assert messages[3]["content"][0]["text"] == "The build was interrupted; starting again."
        assert stub.bodies[-1]["messages"][2]["content"][-1]["text"].startswith("What happened?")
