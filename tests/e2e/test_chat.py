"""The built-in agent end to end: compact/chat against the loopback Messages API, permission prompts answered
by the client, chat events streamed, $/cancelRequest."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, api_error, hang, reply, tool_call

from compact_lsp.engine.conversation.validate import validate

from .conftest import Workspace
from .conversation import new_session, request


@pytest.fixture
def init_options(request: pytest.FixtureRequest, workspace: Workspace, messages_api: MessagesApiStub) -> dict[str, Any]:
    """The stub as the API; a test may add options with ``indirect`` parametrisation."""
    workspace.write("src/app.py", "def greet(name):\n    return 'hello ' + name\n")
    return workspace.options(baseUrl=messages_api.base_url, **getattr(request, "param", {}))


class ClientSide:
    """What the editor sees: chat events, permission prompts (answered from ``answers``)."""

    def __init__(self, client: LanguageClient, answers: list[str]) -> None:
        self.events: list[dict[str, Any]] = []
        self.prompts: list[str] = []
        self.turn_done = asyncio.Event()

        @client.feature("compact/chatEvent")
        def on_event(params: Any) -> None:
            self.events.append(params)

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def on_prompt(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
            self.prompts.append(params.message)
            return types.MessageActionItem(title=answers.pop(0))


async def test_chat_reads_and_edits_with_permission(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace
) -> None:
    side = ClientSide(client, ["Allow once"])
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}, text="Reading."),
        tool_call("edit_file", {"file_path": "src/app.py", "old_string": "'hello '", "new_string": "'hi '"}),
        reply("Changed the greeting."),
    )
    result = await request(client, "compact/chat", {"sessionId": session_id, "text": "Say hi instead."})
    assert result["stopReason"] == "end_turn"
    assert result["usage"]["total"] > 0
    assert (workspace.root / "src/app.py").read_text() == "def greet(name):\n    return 'hi ' + name\n"
    assert len(side.prompts) == 1 and "src/app.py" in side.prompts[0]
    assert {e["sessionId"] for e in side.events} == {session_id}
    kinds = [e["kind"] for e in side.events]
    assert kinds.count("tool_use") == kinds.count("tool_result") == 2
    text = "".join(e["text"] for e in side.events if e["kind"] == "text")
    assert text == "Reading.Changed the greeting."
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert validate(view["messages"]) == []
    assert view["messages"][-1]["content"][-1]["text"] == "Changed the greeting."
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert [f["path"] for f in status["readFiles"]] == ["src/app.py"]


async def test_chat_denied_edit_reaches_the_model_as_an_error(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace
) -> None:
    ClientSide(client, ["Deny"])
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}),
        tool_call("edit_file", {"file_path": "src/app.py", "old_string": "'hello '", "new_string": "'yo '"}),
        reply("Understood."),
    )
    await request(client, "compact/chat", {"sessionId": session_id, "text": "Say yo."})
    assert "'hello '" in (workspace.root / "src/app.py").read_text()
    denied = messages_api.bodies[2]["messages"][-1]["content"][0]
    assert denied["is_error"] is True and "denied" in denied["content"]


async def test_cancel_request_stops_the_turn_cleanly(client: LanguageClient, messages_api: MessagesApiStub) -> None:
    ClientSide(client, [])
    session_id = await new_session(client)
    messages_api.push(tool_call("read_file", {"file_path": "src/app.py"}), hang())
    chat = asyncio.ensure_future(
        client.protocol.send_request_async(
            "compact/chat", {"sessionId": session_id, "text": "read it"}, msg_id="chat-cancel-1"
        )
    )
    assert await asyncio.to_thread(messages_api.wait_for_requests, 2)
    client.protocol.notify("$/cancelRequest", types.CancelParams(id="chat-cancel-1"))
    with pytest.raises(Exception, match="cancel"):
        await chat
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert validate(view["messages"]) == []
    assert view["messages"][-1]["role"] == "user"  # the read's result; nothing of the cancelled answer
    # the session takes the next turn
    messages_api.push(reply("hello again"))
    result = await request(client, "compact/chat", {"sessionId": session_id, "text": "hi"})
    assert result["stopReason"] == "end_turn"


@pytest.mark.parametrize(
    "init_options",
    [
        pytest.param(
            {"autoCompact": {"enabled": True, "threshold": 9000}, "rehydration": {"maxTokensPerFile": 1000}},
            id="low-threshold",
        )
    ],
    indirect=True,
)
async def test_chat_compacts_between_rounds_and_goes_on(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace, init_options: dict[str, Any]
) -> None:
    side = ClientSide(client, [])
    workspace.write("big.txt", "".join(f"line {i} of a long log file\n" for i in range(900)))
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}, input_tokens=100),
        tool_call("read_file", {"file_path": "big.txt"}, input_tokens=100),
        reply("<summary>SUMMARY-MARKER: read app.py and the log.</summary>"),
        reply("Both read.", input_tokens=100),
    )
    did_compact = asyncio.ensure_future(client.wait_for_notification("compact/didCompact"))
    result = await request(client, "compact/chat", {"sessionId": session_id, "text": "Read app.py and big.txt"})
    assert result["stopReason"] == "end_turn"
    compacted = await asyncio.wait_for(did_compact, 10)
    assert (compacted["kind"], compacted["trigger"]) == ("full", "auto")
    after = json.dumps(messages_api.bodies[3]["messages"])
    assert "SUMMARY-MARKER: read app.py and the log." in after
    assert "return 'hello ' + name" in after  # app.py re-attached
    assert any(e["kind"] == "status" and e["message"].startswith("Compacted") for e in side.events)


@pytest.mark.parametrize(
    "init_options",
    [
        pytest.param(
            {"autoCompact": {"enabled": True, "threshold": 9000}, "agent": {"shell": True},
             "rehydration": {"maxTokensPerFile": 1000}},
            id="low-threshold-shell",
        )
    ],
    indirect=True,
)  # fmt: skip
async def test_after_a_compaction_the_model_gets_the_ledger_of_what_it_did(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace, init_options: dict[str, Any]
) -> None:
    """Read, edit, a failing test run, then a compaction: the next request names the edit with its lines, the test's
    status and its failing test, and the file someone else changed since the agent read it."""
    ClientSide(client, ["Allow once"] * 4)
    workspace.write("big.txt", "".join(f"line {i} of a long log file\n" for i in range(900)))
    workspace.write("notes.md", "# notes\n")
    session_id = await new_session(client)
    failing = "printf 'FAILED tests/test_app.py::test_greet - assert hi\\n1 failed\\n'; exit 1"
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}, input_tokens=100),
        tool_call("read_file", {"file_path": "notes.md"}, input_tokens=100),
        tool_call("edit_file", {"file_path": "src/app.py", "old_string": "'hello '", "new_string": "'hi '"}),
        tool_call("run_shell_command", {"command": f"pytest -q || ({failing})"}, input_tokens=100),
        tool_call("read_file", {"file_path": "big.txt"}, input_tokens=100),
        reply("<summary>SUMMARY-MARKER</summary>"),
        reply("Done.", input_tokens=100),
    )
    did_compact = asyncio.ensure_future(client.wait_for_notification("compact/didCompact"))
    result = await request(client, "compact/chat", {"sessionId": session_id, "text": "Say hi, run the tests."})
    assert result["stopReason"] == "end_turn"
    await asyncio.wait_for(did_compact, 10)
    after = messages_api.bodies[-1]["messages"][0]["content"]
    ledger = next(b["text"] for b in after if b["type"] == "text" and b["text"].startswith("<working-set>"))
    lines = ledger.splitlines()
    assert any(line.startswith("Last test: `pytest -q || (printf") and "exit 1: FAILED tests/test_app.py::test_greet"
               in line for line in lines), ledger  # fmt: skip
    assert "- src/app.py: +1 −1" in lines
    assert "SUMMARY-MARKER" in json.dumps(after)


async def test_the_agents_own_edit_is_no_news_but_an_outside_change_is(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace
) -> None:
    """After the agent edits a file it read, the next request carries no "changed on disk" notice of its own edit;
    a change someone else makes to a file it read still reaches the model, with its diff."""
    ClientSide(client, ["Allow once"])
    workspace.write("notes.md", "# notes\n")
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}),
        tool_call("read_file", {"file_path": "notes.md"}),
        tool_call("edit_file", {"file_path": "src/app.py", "old_string": "'hello '", "new_string": "'hi '"}),
        reply("Edited."),
    )
    await request(client, "compact/chat", {"sessionId": session_id, "text": "Say hi."})
    noticed = asyncio.ensure_future(_usage_with_attachments(client))
    await asyncio.sleep(0)
    workspace.write("notes.md", "# notes\nby someone else\n")
    await asyncio.wait_for(noticed, 10)
    messages_api.push(reply("Noted."))
    await request(client, "compact/chat", {"sessionId": session_id, "text": "Anything new?"})
    sent = json.dumps(messages_api.bodies[-1]["messages"])
    assert "notes.md changed on disk since you read it" in sent and "+by someone else" in sent
    assert "src/app.py changed on disk" not in sent


async def _usage_with_attachments(client: LanguageClient) -> None:
    while True:
        params = await client.wait_for_notification("compact/didChangeUsage")
        if params["usage"]["byKind"].get("attachments", 0) > 0:
            return


async def test_a_re_read_of_an_unchanged_file_is_one_line_and_a_changed_one_is_read_again(
    client: LanguageClient, messages_api: MessagesApiStub, workspace: Workspace
) -> None:
    ClientSide(client, [])
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}),
        tool_call("read_file", {"file_path": "src/app.py"}),
        reply("Read twice."),
    )
    await request(client, "compact/chat", {"sessionId": session_id, "text": "Read app.py."})
    second = messages_api.bodies[2]["messages"][-1]["content"][0]
    assert second["content"] == (
        "[src/app.py is unchanged since you last read it: its whole text is already in this conversation, above. "
        "Use that copy.]"
    )
    workspace.write("src/app.py", "def greet(name):\n    return 'hey ' + name\n")
    messages_api.push(tool_call("read_file", {"file_path": "src/app.py"}), reply("Read again."))
    await request(client, "compact/chat", {"sessionId": session_id, "text": "And now?"})
    third = json.dumps(messages_api.bodies[-1]["messages"][-1]["content"][0])
    assert "return 'hey ' + name" in third


async def test_a_turn_that_ends_on_an_api_error_names_the_failure(
    client: LanguageClient, messages_api: MessagesApiStub
) -> None:
    """The turn's answer says what failed (``errorKind``) as docs/protocol.md and its schema say."""
    messages_api.default = api_error(529, "overloaded_error", "Overloaded", headers={"x-should-retry": "false"})
    session_id = await new_session(client)
    result = await request(client, "compact/chat", {"sessionId": session_id, "text": "hello"})
    assert (result["stopReason"], result["errorKind"]) == ("error", "overloaded") and "529" in result["error"]
