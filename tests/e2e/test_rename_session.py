"""Renaming a session (compact/renameSession) through the real server: the new title is listed at once and after
a restart; a title that is not one is refused and the journal is left as it was."""

from __future__ import annotations

import pytest
from pytest_lsp import LanguageClient

from .conftest import Workspace, start_server, stop_server
from .conversation import append, new_session, request, start


async def titles(client: LanguageClient) -> dict[str, str]:
    return {s["sessionId"]: s["title"] for s in await request(client, "compact/sessions", {})}


async def test_a_renamed_session_is_listed_with_its_new_title_after_a_restart(workspace: Workspace) -> None:
    first = await start_server(workspace)
    try:
        renamed = await new_session(first, "old title")
        other = (await request(first, "compact/newSession", {"source": "chat"}))["sessionId"]
        await append(first, other, start("why is the build slow?"))
        assert await request(first, "compact/renameSession", {"sessionId": renamed, "title": "  Login bug  "}) == {}
        assert await request(first, "compact/renameSession", {"sessionId": other, "title": "Build speed"}) == {}
        assert await titles(first) == {renamed: "Login bug", other: "Build speed"}
        assert (await request(first, "compact/status", {"sessionId": renamed}))["title"] == "Login bug"
    finally:
        await stop_server(first)

    next(workspace.sessions.rglob("index.json")).unlink()  # the listing is rebuilt from the journals alone
    second = await start_server(workspace)
    try:
        assert await titles(second) == {renamed: "Login bug", other: "Build speed"}
        assert (await request(second, "compact/status", {"sessionId": other}))["title"] == "Build speed"
    finally:
        await stop_server(second)


@pytest.mark.parametrize(
    ("title", "says"),
    [
        pytest.param("   ", "empty", id="blank"),
        pytest.param("x" * 201, "at most 200", id="too-long"),
        pytest.param("a\x00b", "control character", id="nul"),
        pytest.param("two\nlines", "control character", id="newline"),
        pytest.param(42, "must be a string", id="not-a-string"),
    ],
)
async def test_a_bad_title_is_refused_and_nothing_is_written(workspace: Workspace, title: object, says: str) -> None:
    client = await start_server(workspace)
    try:
        session = await new_session(client, "kept")
        journal = next(workspace.sessions.rglob(f"{session}.jsonl"))
        before = journal.read_bytes()
        with pytest.raises(Exception, match=says):
            await request(client, "compact/renameSession", {"sessionId": session, "title": title})
        assert journal.read_bytes() == before
        assert (await titles(client))[session] == "kept"
        with pytest.raises(Exception, match="unknown session"):
            await request(client, "compact/renameSession", {"sessionId": "ses_gone", "title": "x"})
    finally:
        await stop_server(client)
