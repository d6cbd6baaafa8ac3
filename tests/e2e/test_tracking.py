"""Notifications and tracking end to end: usage, changed files on disk, editor documents, settings changes."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, reply

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import all_text, append, new_session, read_file, read_round, request, start


async def notification_where(
    lsp: LanguageClient, method: str, matches: Callable[[Any], bool], *, trigger: Any = None
) -> Any:
    """The first ``method`` notification whose params satisfy ``matches``, started before ``trigger``."""

    async def wait() -> Any:
        while True:
            params = await lsp.wait_for_notification(method)
            if matches(params):
                return params

    waiting = asyncio.ensure_future(wait())
    await asyncio.sleep(0)  # let the waiter register before the trigger runs
    if trigger is not None:
        await trigger
    return await asyncio.wait_for(waiting, GUARD)


async def test_usage_notification_follows_an_append(client: LanguageClient) -> None:
    session_id = await new_session(client)
    result_holder: dict[str, Any] = {}

    async def do_append() -> None:
        result_holder.update(await append(client, session_id, start("hello there")))

    note = await notification_where(
        client, "compact/didChangeUsage", lambda p: p["usage"]["total"] > 0, trigger=do_append()
    )
    assert note["sessionId"] == session_id
    assert note["usage"] == result_holder["usage"]


async def read_and_show(client: LanguageClient, workspace: Workspace, path: str, text: str) -> str:
    workspace.write(path, text)
    session_id = await new_session(client)
    read = await read_file(client, session_id, path)
    await notification_where(
        client,
        "compact/didChangeUsage",
        lambda p: p["usage"]["byKind"]["toolResult"] > 0,
        trigger=append(client, session_id, start() + read_round("toolu_1", path, read["content"])),
    )
    return session_id


async def test_a_file_changed_on_disk_is_stale_and_the_next_view_shows_the_diff(
    client: LanguageClient, workspace: Workspace
) -> None:
    session_id = await read_and_show(client, workspace, "src/app.py", "def rate():\n    return 0.25\n")

    async def edit() -> None:
        workspace.write("src/app.py", "def rate():\n    return 0.30\n")

    await notification_where(
        client, "compact/didChangeUsage", lambda p: p["usage"]["byKind"]["attachments"] > 0, trigger=edit()
    )
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert [(f["path"], f["freshness"]) for f in status["readFiles"]] == [("src/app.py", "stale")]
    view = await request(client, "compact/messages", {"sessionId": session_id})
    notice = view["messages"][-1]["content"][-1]["text"]
    assert "src/app.py changed on disk since you read it" in notice
    assert "-    return 0.25" in notice and "+    return 0.30" in notice
    await append(client, session_id, [{"role": "assistant", "content": "Noted the new rate."}])
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert "return 0.30" in all_text(view["messages"])  # the notice became part of history


async def test_a_changed_file_stays_stale_while_the_session_goes_on(
    client: LanguageClient, workspace: Workspace
) -> None:
    """A published status keeps each file's entry until it changes: the changed file's entry must change with it,
    and stay changed through appends that do not touch it."""
    session_id = await read_and_show(client, workspace, "src/a.py", "a = 1\n")
    workspace.write("src/b.py", "b = 2\n")
    read = await read_file(client, session_id, "src/b.py")
    await append(client, session_id, read_round("toolu_2", "src/b.py", read["content"]))

    async def edit() -> None:
        workspace.write("src/a.py", "a = 10\n")

    await notification_where(
        client, "compact/didChangeUsage", lambda p: p["usage"]["byKind"]["attachments"] > 0, trigger=edit()
    )
    await append(client, session_id, [{"role": "assistant", "content": "Noted."}])
    workspace.write("src/c.py", "c = 3\n")
    read = await read_file(client, session_id, "src/c.py")
    await append(client, session_id, start("Go on.") + read_round("toolu_3", "src/c.py", read["content"]))
    status = await request(client, "compact/status", {"sessionId": session_id})
    freshness = {f["path"]: f["freshness"] for f in status["readFiles"]}
    assert freshness == {"src/a.py": "stale", "src/b.py": "fresh", "src/c.py": "fresh"}
    assert [f["path"] for f in status["readFiles"]] == ["src/c.py", "src/b.py", "src/a.py"]


async def test_a_file_in_a_folder_made_after_the_read_is_seen_at_the_next_change(
    client: LanguageClient, workspace: Workspace
) -> None:
    """No watcher can follow a file whose folder did not exist: its entry is stat'ed again at every change."""
    session_id = await new_session(client)
    await append(client, session_id, start() + read_round("toolu_1", "gen/out.txt", "(the agent's own copy)"))
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["readFiles"][0]["freshness"] == "deleted"
    workspace.write("gen/out.txt", "built\n")
    await append(client, session_id, [{"role": "assistant", "content": "Built it."}])
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["readFiles"][0]["path"] == "gen/out.txt"
    assert status["readFiles"][0]["freshness"] != "deleted"


async def test_a_deleted_file_is_reported(client: LanguageClient, workspace: Workspace) -> None:
    session_id = await read_and_show(client, workspace, "notes.txt", "todo\n")

    async def delete() -> None:
        os.unlink(workspace.root / "notes.txt")

    await notification_where(
        client, "compact/didChangeUsage", lambda p: p["usage"]["byKind"]["attachments"] > 0, trigger=delete()
    )
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["readFiles"][0]["freshness"] == "deleted"
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert "notes.txt was deleted" in all_text(view["messages"])


async def test_open_editor_documents_join_the_session(client: LanguageClient, workspace: Workspace) -> None:
    path = workspace.write("src/open.py", "x = 1\n")
    session_id = await new_session(client)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text="x = 1\n")
        )
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 2\n")],
        )
    )
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert [(f["path"], f["open"], f["dirty"]) for f in status["readFiles"]] == [("src/open.py", True, True)]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["readFiles"] == []


async def test_documents_opened_before_a_session_join_it(client: LanguageClient, workspace: Workspace) -> None:
    path = workspace.write("early.py", "y = 1\n")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=3, text="y = 1\n")
        )
    )
    session_id = await new_session(client)
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert [(f["path"], f["open"], f["dirty"]) for f in status["readFiles"]] == [("early.py", True, False)]


async def test_invalid_initialization_options_warn_and_use_defaults(workspace: Workspace) -> None:
    lsp = await start_server(workspace, workspace.options(contextWindow="big"))
    try:
        session_id = await new_session(lsp)  # a request after initialize: the warning was sent before its answer
        status = await request(lsp, "compact/status", {"sessionId": session_id})
        assert status["usage"]["contextWindow"] == 200_000
        warnings = [m for m in lsp.messages if m.type == types.MessageType.Warning]
        assert len(warnings) == 1 and "contextWindow: expected an integer" in warnings[0].message
    finally:
        await stop_server(lsp)


async def test_settings_change_applies_in_place(client: LanguageClient, workspace: Workspace) -> None:
    session_id = await new_session(client)
    await append(client, session_id, start("keep me"))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"compactLsp": {"contextWindow": 100_000}})
    )
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["usage"]["contextWindow"] == 100_000
    view = await request(client, "compact/messages", {"sessionId": session_id})
    assert all_text(view["messages"]) == "keep me"


async def test_an_invalid_settings_change_drops_only_the_bad_keys(client: LanguageClient, workspace: Workspace) -> None:
    session_id = await new_session(client)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"compactLsp": {"contextWindow": 120_000}})
    )
    shown = asyncio.ensure_future(client.wait_for_notification("window/showMessage"))
    await asyncio.sleep(0)
    bad = {"autoCompact": {"threshold": "lots"}, "sessionDir": 5, "apiKey": 42, "rehydration": {"maxFiles": 3}}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"compactLsp": bad}))
    message = (await asyncio.wait_for(shown, GUARD)).message
    assert "autoCompact.threshold" in message and "sessionDir" in message and "apiKey" in message
    assert "maxFiles" not in message
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["usage"]["contextWindow"] == 120_000  # the value in force, not the default
    # sessionDir kept its value: a new session is still written where the user put the sessions
    before = set(workspace.sessions.rglob("*.jsonl"))
    await append(client, await new_session(client), start("still stored"))
    assert len(set(workspace.sessions.rglob("*.jsonl")) - before) == 1


@pytest.mark.parametrize(
    "options",
    [pytest.param({"microcompact": {"sizeThresholdTokens": 2_000, "keepRecent": 1}}, id="size-trigger")],
)
async def test_automatic_microcompaction_is_reported(workspace: Workspace, options: dict[str, Any]) -> None:
    lsp = await start_server(workspace, workspace.options(**options))
    try:
        session_id = await new_session(lsp)
        conversation = start()
        for i in range(4):
            conversation += read_round(f"toolu_{i}", f"f{i}.txt", "\n".join(f"data {i} {j}" for j in range(300)))

        note = await notification_where(
            lsp,
            "compact/didCompact",
            lambda p: p["kind"] == "micro",
            trigger=append(lsp, session_id, conversation),
        )
        assert note["trigger"] == "size" and note["tokensAfter"] < note["tokensBefore"]
    finally:
        await stop_server(lsp)


async def test_auto_compaction_runs_after_an_append_past_the_threshold(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.push(reply("<summary>Lots of data was read.</summary>"))
    options = workspace.options(baseUrl=messages_api.base_url, autoCompact={"enabled": True, "threshold": 3_000})
    options["microcompact"] = {"sizeThresholdTokens": -1}
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        conversation = start()
        for i in range(4):
            conversation += read_round(f"toolu_{i}", f"f{i}.txt", "\n".join(f"data {i} {j}" for j in range(300)))
        result = await append(lsp, session_id, conversation)
        assert result["compaction"]["trigger"] == "auto"
        assert result["usage"]["total"] < 3_000 <= result["compaction"]["tokensBefore"]
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert "Lots of data was read." in all_text(view["messages"])
    finally:
        await stop_server(lsp)
