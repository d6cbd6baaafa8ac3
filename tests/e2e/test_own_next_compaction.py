"""The warning before our own agent compacts, through the real server and a loopback Messages API: a chat session
says how far our next automatic compaction is (``autoCompact.threshold``), its gauge warns when that is near and
says so in the same words as ``nextCompaction``, and a configuration that turns it off is named."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

from .conftest import GUARD, Workspace
from .conversation import new_session, request, usage_notified


@pytest.fixture
def init_options(workspace: Workspace, messages_api: MessagesApiStub) -> dict[str, Any]:
    workspace.write("src/app.py", "def greet(name):\n    return 'hello ' + name\n")
    workspace.write("big.txt", "".join(f"line {i} of a long log file\n" for i in range(810)))
    return workspace.options(baseUrl=messages_api.base_url, autoCompact={"enabled": True, "threshold": 9000})


def level_of(next_one: dict[str, Any]) -> str:
    """The level the gauge must show for a next compaction."""
    return "critical" if next_one["tokensLeft"] == 0 else "warning" if next_one["near"] else "ok"


async def test_our_session_says_how_far_its_next_automatic_compaction_is(
    client: LanguageClient, messages_api: MessagesApiStub
) -> None:
    session_id = await new_session(client)
    messages_api.push(
        tool_call("read_file", {"file_path": "src/app.py"}, input_tokens=100),
        reply("It greets.", input_tokens=100),
        tool_call("read_file", {"file_path": "big.txt"}, input_tokens=100),
        reply("A long log.", input_tokens=100),
    )
    first = await request(client, "compact/chat", {"sessionId": session_id, "text": "What does app.py do?"})
    far = first["usage"]["nextCompaction"]
    assert far["thresholdTokens"] == 9000 and far["origin"] == "autoCompact.threshold: 9,000"
    # what the next request holds: the messages, and the agent's prompt and tools that they do not count
    assert far["tokensLeft"] < 9000 - first["usage"]["total"] and far["turnsLeft"] >= 2
    assert not far["near"] and far["disabledBy"] is None and first["usage"]["level"] == "ok"

    second = await request(client, "compact/chat", {"sessionId": session_id, "text": "And big.txt?"})
    usage = second["usage"]
    near = usage["nextCompaction"]
    assert 0 < near["tokensLeft"] < 900 and near["near"], usage
    assert usage["level"] == level_of(near) == "warning" and near["tokensLeft"] <= 9000 - usage["warningThreshold"]
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["usage"]["nextCompaction"] == near  # the status and the turn's answer agree

    noticed = usage_notified(client, lambda usage: usage["nextCompaction"]["disabledBy"] is not None)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"compactLsp": {"autoCompact": {"enabled": False}}})
    )
    off = (await asyncio.wait_for(noticed, GUARD))["usage"]  # never sent still on automatic compaction: it fails
    assert off["nextCompaction"]["disabledBy"] == '"autoCompact.enabled": false'
    assert off["nextCompaction"]["thresholdTokens"] is None and not off["nextCompaction"]["near"]
