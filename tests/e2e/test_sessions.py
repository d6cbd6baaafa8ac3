"""Sessions end to end: create, list, append, view, persist across a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import all_text, append, new_session, read_file, read_round, request, start


async def test_new_session_is_listed_with_title_and_usage(client: LanguageClient) -> None:
    session_id = await new_session(client, "fix login")
    listed = await request(client, "compact/sessions", {})
    assert [s["sessionId"] for s in listed] == [session_id]
    entry = listed[0]
    assert entry["title"] == "fix login"
    assert entry["updatedAt"].endswith("Z")
    assert entry["usage"]["contextWindow"] == 200_000


async def test_sessions_are_listed_most_recently_updated_first(client: LanguageClient) -> None:
    older = await new_session(client, "older")
    newer = await new_session(client, "newer")
    await append(client, older, start())
    listed = await request(client, "compact/sessions", {})
    assert [s["sessionId"] for s in listed] == [older, newer]


async def test_appended_messages_are_what_messages_returns(client: LanguageClient) -> None:
    session_id = await new_session(client)
    conversation = start() + read_round("toolu_1", "main.py", "print(1)")
    result = await append(client, session_id, conversation, usage={"input_tokens": 1200, "output_tokens": 80})
    assert result["usage"]["total"] > 0
    assert result["usage"]["reported"] == 1200
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert view["messages"][1] == conversation[1]
    assert all_text(view["messages"]) == all_text(conversation)
    assert view["usage"]["total"] == result["usage"]["total"]


async def test_message_content_survives_byte_for_byte(client: LanguageClient) -> None:
    """Keys that are not identifiers (and cache_control) must come back exactly as sent."""
    session_id = await new_session(client)
    message = {
        "role": "user",
        "content": [{"type": "text", "text": "hi ✓", "cache_control": {"type": "ephemeral"}, "x-custom": [1]}],
    }
    await append(client, session_id, [message])
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert view["messages"] == [message]


async def test_a_malformed_message_rejects_the_whole_call(client: LanguageClient) -> None:
    session_id = await new_session(client)
    await append(client, session_id, start())
    bad = [*read_round("toolu_1", "a.py", "x"), {"role": "robot", "content": "?"}]
    with pytest.raises(Exception, match="'role' must be 'user' or 'assistant'"):
        await append(client, session_id, bad)
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert len(view["messages"]) == 1


async def test_an_invalid_conversation_is_rejected_with_the_reason(client: LanguageClient) -> None:
    session_id = await new_session(client)
    orphan = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "?"}]}]
    with pytest.raises(Exception, match="would make the conversation invalid"):
        await append(client, session_id, orphan)


async def test_sessions_survive_a_server_restart(workspace: Workspace) -> None:
    workspace.write("src/app.py", "def main():\n    return 1\n")
    first = await start_server(workspace)
    try:
        session_id = await new_session(first, "persisted")
        await read_file(first, session_id, "src/app.py")
        await append(first, session_id, start() + read_round("toolu_1", "src/app.py", "def main():\n    return 1\n"))
        before = await request(first, "compact/messages", {"sessionId": session_id})
    finally:
        await stop_server(first)

    second = await start_server(workspace)
    try:
        listed = await request(second, "compact/sessions", {})
        assert [(s["sessionId"], s["title"]) for s in listed] == [(session_id, "persisted")]
        after = await request(second, "compact/messages", {"sessionId": session_id})
        assert after == before
        status = await request(second, "compact/status", {"sessionId": session_id})
        assert [f["path"] for f in status["readFiles"]] == ["src/app.py"]
        # The reloaded session's files are watched again: a change after the restart is noticed.
        noticed = asyncio.ensure_future(second.wait_for_notification("compact/didChangeUsage"))
        await asyncio.sleep(0)
        workspace.write("src/app.py", "def main():\n    return 2\n")
        note = await asyncio.wait_for(noticed, GUARD)
        assert note["usage"]["byKind"]["attachments"] > 0
        view = await request(second, "compact/messages", {"sessionId": session_id})
        assert "+    return 2" in all_text(view["messages"])
        await append(second, session_id, [{"role": "assistant", "content": "It returns 2 now."}])
    finally:
        await stop_server(second)
    files = list(workspace.sessions.rglob(f"{session_id}.jsonl"))
    assert len(files) == 1


async def test_a_damaged_session_file_loads_what_it_can_and_says_so(workspace: Workspace) -> None:
    first = await start_server(workspace)
    try:
        session_id = await new_session(first, "damaged")
        await append(first, session_id, start("first question"))
    finally:
        await stop_server(first)
    (path,) = workspace.sessions.rglob(f"{session_id}.jsonl")
    with open(path, "ab") as f:
        f.write(b'{"type": "append", "messages": [{"role": "assis')  # a crash mid-write

    second = await start_server(workspace)
    try:
        shown = asyncio.ensure_future(second.wait_for_notification("window/showMessage"))
        view = await request(second, "compact/messages", {"sessionId": session_id})
        assert all_text(view["messages"]) == "first question"
        await asyncio.wait_for(shown, GUARD)
        assert any("damaged session file" in m.message for m in second.messages)
    finally:
        await stop_server(second)


BAD_REQUESTS: list[Any] = [
    pytest.param("compact/newSession", {"title": 5}, "'title' must be a string", id="newSession-title-number"),
    pytest.param("compact/newSession", [1, 2], "params must be an object", id="newSession-params-array"),
    pytest.param("compact/append", {"messages": []}, "'sessionId' is required", id="append-no-session"),
    pytest.param(
        "compact/append",
        {"sessionId": "ses_nope", "messages": []},
        "unknown session 'ses_nope'",
        id="append-unknown-session",
    ),
    pytest.param(
        "compact/append",
        {"sessionId": "../../etc", "messages": []},
        "invalid session id",
        id="append-path-like-session",
    ),
    pytest.param("compact/append", "SESSION", "'messages' must be an array", id="append-messages-missing"),
    pytest.param("compact/append", "SESSION+", "'usage' must be an object", id="append-usage-not-object"),
    pytest.param("compact/messages", {}, "'sessionId' is required", id="messages-no-session"),
    pytest.param("compact/messages", {"sessionId": 7}, "'sessionId' must be a string", id="messages-session-number"),
    pytest.param("compact/status", {"sessionId": "ses_nope"}, "unknown session", id="status-unknown-session"),
    pytest.param("compact/readFile", "READ:../outside.txt", "outside the workspace", id="readFile-outside"),
    pytest.param("compact/readFile", "READ:", "'path' is required", id="readFile-no-path"),
    pytest.param("compact/readFile", "READ:blob.bin", "looks binary", id="readFile-binary"),
    pytest.param("compact/readFile", "READ:src", "is a directory", id="readFile-directory"),
    pytest.param("compact/readFile", "READ:nothing.py", "no such file", id="readFile-missing"),
    pytest.param("compact/readFile", "READ-OFFSET", "'offset' must be at least 1", id="readFile-offset-zero"),
]


@pytest.mark.parametrize(("method", "params", "message"), BAD_REQUESTS)
async def test_bad_input_gets_a_readable_error_and_the_server_lives(
    client: LanguageClient, workspace: Workspace, method: str, params: Any, message: str
) -> None:
    session_id = await new_session(client)
    workspace.write("src/ok.py", "ok\n")
    (workspace.root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (workspace.root.parent / "outside.txt").write_text("secret\n")
    if params == "SESSION":
        params = {"sessionId": session_id}
    elif params == "SESSION+":
        params = {"sessionId": session_id, "messages": [], "usage": 5}
    elif params == "READ-OFFSET":
        params = {"sessionId": session_id, "path": "src/ok.py", "offset": 0}
    elif isinstance(params, str) and params.startswith("READ:"):
        params = {"sessionId": session_id, "path": params[5:]}
    with pytest.raises(Exception, match=message):
        await request(client, method, params)
    assert await request(client, "compact/status", {"sessionId": session_id})  # still serving
