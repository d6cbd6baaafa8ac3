"""Session notes through the server: notes kept in the background make the next compaction instant."""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, reply

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import append, command, new_session, request
from .test_commands import long_conversation


async def notes_cover(lsp: LanguageClient, session_id: str, count: int) -> dict[str, Any]:
    """Wait until the background notes cover ``count`` messages (they are written off the request path)."""

    async def poll() -> dict[str, Any]:
        while True:
            status = await request(lsp, "compact/status", {"sessionId": session_id})
            notes = status.get("sessionNotes")
            if notes and notes["coveredUpto"] >= count:
                return status
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(poll(), GUARD)


async def test_up_to_date_notes_compact_without_a_model_call(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.push(reply("<summary>should not be needed</summary>"))
    options = workspace.options(
        baseUrl=messages_api.base_url,
        sessionMemory={"enabled": True, "useModel": False, "firstAfterTokens": 500, "minToolCalls": 1},
    )
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        conversation = long_conversation(rounds=12)
        await append(lsp, session_id, conversation)
        status = await notes_cover(lsp, session_id, len(conversation))
        assert status["sessionNotes"]["writer"] == "offline"

        result = await command(lsp, "compact.compact", {"sessionId": session_id})

        assert result["summarizer"] == "session-memory"
        assert result["tokensAfter"] < result["tokensBefore"]
        assert messages_api.requests == []  # the user did not wait for a model
    finally:
        await stop_server(lsp)
