"""Sessions that follow the user: the current session, the picker's list, a transcript for a chat view, settings
that show at once, and continuing an imported session (the real server over stdio)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, api_error, reply

from compact_lsp.engine.conversation.messages import normalize_message

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import append, command, new_session, read_round, request, start, usage_notified
from .test_commands import long_conversation

SESSION = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"


async def current(client: LanguageClient) -> str | None:
    result = await request(client, "compact/currentSession", {})
    session_id: str | None = result["sessionId"]
    return session_id


async def test_the_current_session_is_the_last_chosen_and_survives_a_restart(workspace: Workspace) -> None:
    first = await start_server(workspace)
    try:
        assert await current(first) is None
        older = await new_session(first, "older")
        newer = await new_session(first, "newer")
        assert await current(first) == newer  # a new session is the user's choice
        await append(first, older, start("a question for the older one"))
        assert await current(first) == newer  # an agent appending elsewhere does not move the user

        usage = asyncio.ensure_future(first.wait_for_notification("compact/didChangeUsage"))
        assert await request(first, "compact/selectSession", {"sessionId": older}) == {}
        note = await asyncio.wait_for(usage, GUARD)
        assert note["sessionId"] == older and note["usage"]["total"] > 0
        listed = await request(first, "compact/sessions", {})
        assert {s["sessionId"]: s["current"] for s in listed} == {older: True, newer: False}
    finally:
        await stop_server(first)

    second = await start_server(workspace)
    try:
        assert await current(second) == older
        assert (await command(second, "compact.status"))["sessionId"] == older
        assert (await request(second, "compact/status", {}))["title"] == "older"
    finally:
        await stop_server(second)


async def test_selecting_an_unknown_session_says_what_to_do(client: LanguageClient) -> None:
    kept = await new_session(client)
    try:
        await request(client, "compact/selectSession", {"sessionId": "ses_gone"})
    except Exception as exc:
        assert "unknown session 'ses_gone'" in str(exc) and "compact/sessions" in str(exc)
    else:
        raise AssertionError("selecting an unknown session was accepted")
    assert await current(client) == kept


async def test_list_items_say_what_a_picker_shows(client: LanguageClient) -> None:
    titled = await new_session(client, "fix login")
    untitled = (await request(client, "compact/newSession", {"source": "chat"}))["sessionId"]
    first_words = [
        {"type": "text", "text": "<ide_opened_file>The user opened the file src/app.py in the IDE.</ide_opened_file>"},
        {"type": "text", "text": "Why does the login form reject valid emails?\nIt started yesterday."},
    ]
    await append(client, untitled, [{"role": "user", "content": first_words}])
    listed = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
    chat = listed[untitled]
    assert chat["title"] == "Why does the login form reject valid emails?"  # the user's words, not the IDE's
    assert chat["source"] == "chat" and listed[titled]["source"] == "api"
    assert listed[titled]["title"] == "fix login"
    assert chat["messages"] == 1 and listed[titled]["messages"] == 0
    assert chat["tokens"] == chat["usage"]["total"] > listed[titled]["tokens"]
    assert chat["damaged"] is False
    assert chat["createdAt"].endswith("Z") and chat["updatedAt"] >= chat["createdAt"]
    assert chat["current"] is True and listed[titled]["current"] is False


async def test_the_list_after_a_restart_matches_and_flags_a_damaged_session(workspace: Workspace) -> None:
    first = await start_server(workspace)
    try:
        healthy = await new_session(first, "healthy")
        await append(first, healthy, start() + read_round("toolu_1", "a.py", "x = 1\n" * 200))
        damaged = await new_session(first, "damaged")
        await append(first, damaged, start("first question"))
        before = {s["sessionId"]: s for s in await request(first, "compact/sessions", {})}
    finally:
        await stop_server(first)
    (path,) = workspace.sessions.rglob(f"{damaged}.jsonl")
    with open(path, "ab") as f:
        f.write(b"{not json at all}\n")

    second = await start_server(workspace)
    try:
        after = {s["sessionId"]: s for s in await request(second, "compact/sessions", {})}
        assert after[healthy] == before[healthy]  # from the index, exactly as the first server knew it
        assert after[damaged]["damaged"] is True and before[damaged]["damaged"] is False
        assert after[damaged]["messages"] == 1 and after[damaged]["title"] == "damaged"
    finally:
        await stop_server(second)


async def test_a_settings_change_shows_in_the_next_usage_notification(client: LanguageClient) -> None:
    session_id = await new_session(client)
    await append(client, session_id, start())
    noticed = usage_notified(client, lambda usage: usage["contextWindow"] == 8_000)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"compactLsp": {"contextWindow": 8_000}})
    )
    note = await asyncio.wait_for(noticed, GUARD)
    usage = note["usage"]
    assert note["sessionId"] == session_id and usage["contextWindow"] == 8_000
    assert 0 < usage["warningThreshold"] < usage["autoCompactThreshold"] < 8_000
    listed = await request(client, "compact/sessions", {})
    assert listed[0]["usage"]["contextWindow"] == 8_000


async def test_transcript_shows_everything_said_with_compaction_markers(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.default = api_error(529, "overloaded_error", "Overloaded", headers={"x-should-retry": "false"})
    options = workspace.options(baseUrl=messages_api.base_url, microcompact={"keepRecent": 1})
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        conversation = long_conversation(rounds=3)
        await append(lsp, session_id, conversation)
        micro = await command(lsp, "compact.microcompact", {"sessionId": session_id})
        assert micro["changed"] is True and micro["cleared"]
        compacted = asyncio.ensure_future(lsp.wait_for_notification("compact/didCompact"))
        full = await command(lsp, "compact.compact", {"sessionId": session_id})
        note = await asyncio.wait_for(compacted, GUARD)
        assert full["fallback"] is True and full["summarizer"] == "offline"
        assert full["fallbackReason"].startswith("overloaded")
        assert (note["summarizer"], note["fallback"], note["fallbackReason"]) == (
            "offline",
            True,
            full["fallbackReason"],
        )
        full_view_after = await request(lsp, "compact/messages", {"sessionId": session_id})
        later = [{"role": "assistant", "content": [{"type": "text", "text": "Picking up after the summary."}]}]
        await append(lsp, session_id, later)
        shown = await request(lsp, "compact/transcript", {"sessionId": session_id})
    finally:
        await stop_server(lsp)

    entries = shown["entries"]
    assert [e["kind"] for e in entries] == ["message"] * len(conversation) + [
        "microcompaction",
        "compaction",
        "message",
    ]
    said = [normalize_message(m) for m in [*conversation, *later]]  # as sent (strings as text blocks), uncleared
    assert [e["message"] for e in entries if e["kind"] == "message"] == said
    clearing = entries[len(conversation)]
    assert [c["toolUseId"] for c in clearing["cleared"]] == [c["toolUseId"] for c in micro["cleared"]]
    assert clearing["trigger"] == "forced" and clearing["tokensSaved"] == micro["tokensSaved"]
    boundary = entries[len(conversation) + 1]
    assert boundary["trigger"] == "manual" and boundary["boundaryId"] == full["boundaryId"]
    assert (boundary["summarizer"], boundary["fallback"]) == ("offline", True)
    assert boundary["fallbackReason"] == full["fallbackReason"]
    assert (boundary["tokensBefore"], boundary["tokensAfter"]) == (full["tokensBefore"], full["tokensAfter"])
    texts = [b.get("text", "") for m in full_view_after["messages"] for b in m["content"] if isinstance(b, dict)]
    assert boundary["summary"] and any(boundary["summary"] in text for text in texts), "not the model's summary"
    assert all(e["at"].endswith("Z") for e in entries)

    again = await start_server(workspace, options)  # a restarted editor restores the same chat
    try:
        assert await request(again, "compact/transcript", {"sessionId": session_id}) == shown
    finally:
        await stop_server(again)


async def test_an_imported_session_continues_with_its_whole_history(
    workspace: Workspace, messages_api: MessagesApiStub, corpus_dir: Path
) -> None:
    lsp = await start_server(workspace, workspace.options(baseUrl=messages_api.base_url))
    try:
        imported = await request(lsp, "compact/importSession", {"path": str(corpus_dir / SESSION)})
        session_id = imported["sessionId"]
        assert await current(lsp) == session_id
        (item,) = await request(lsp, "compact/sessions", {})
        assert item["source"] == "import" and item["messages"] == imported["messages"]
        assert item["title"] and not item["title"].startswith("<")
        messages_api.push(reply("Carrying on where we left off."))
        result = await request(lsp, "compact/chat", {"sessionId": session_id, "text": "What was the last change?"})
        assert result["stopReason"] == "end_turn"
        (body,) = messages_api.bodies
        sent: list[dict[str, Any]] = body["messages"]
        assert len(sent) == imported["messages"] + 1  # the whole history, then the new question
        assert sent[-1]["role"] == "user"
    finally:
        await stop_server(lsp)


async def test_a_threshold_set_at_start_and_reset_in_the_editor_goes_back_to_the_default(workspace: Workspace) -> None:
    """VS Code's didChangeConfiguration after the user removed a threshold: every setting, the unset ones null."""
    lsp = await start_server(workspace, workspace.options(autoCompact={"threshold": 12_000}, contextWindow=100_000))
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, start())
        status = await command(lsp, "compact.status", {"sessionId": session_id})
        assert status["usage"]["autoCompactThreshold"] == 12_000
        change = {"contextWindow": 100_000, "autoCompact": {"enabled": True, "threshold": None}, "model": None}
        lsp.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"compactLsp": change}))
        status = await command(lsp, "compact.status", {"sessionId": session_id})
        assert status["usage"]["autoCompactThreshold"] == 67_000  # min(85% of 100k, 100k - 33k)
    finally:
        await stop_server(lsp)
