"""The current session is the user's: per workspace, the last session the user chose; a followed Claude Code
session is listed but never becomes current by itself, and "Import to continue" makes a managed copy of it."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from tests.support.messages_api_stub import MessagesApiStub

from compact_lsp.agents.claude_code.live import project_directory

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

SESSION = "0b5e2c1a-7d3f-4e8a-9c6b-2f1d0a9e8b7c"
FOLLOWED = f"claude-{SESSION}"


def claude_code_log(cwd: str) -> bytes:
    """Two records as Claude Code writes them: the user asks, the assistant answers."""

    def record(kind: str, uuid: str, parent: str | None, message: dict[str, Any]) -> str:
        fields = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "cwd": cwd}
        return json.dumps({**fields, "timestamp": "2026-11-30T09:00:00.000Z", "isSidechain": False, "message": message})

    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
              "content": [{"type": "text", "text": "I'll add it after the column functions."}],
              "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip
    lines = [
        record("user", "u1", None, {"role": "user", "content": "Add a CSV export to report.py"}),
        record("assistant", "a1", "u1", answer),
    ]
    return ("\n".join(lines) + "\n").encode()


async def listed_followed(client: LanguageClient) -> dict[str, dict[str, Any]]:
    """compact/sessions once the followed transcript is read (it is read after the server starts)."""
    for _ in range(int(GUARD / 0.1)):
        listed = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        if FOLLOWED in listed:
            return listed
        await asyncio.sleep(0.1)
    raise AssertionError("the Claude Code transcript was never listed")


@pytest.fixture
def options(tmp_path: Path, workspace: Workspace) -> dict[str, Any]:
    """A workspace whose Claude Code project directory holds a transcript written just now (newer than ours)."""
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    (directory / f"{SESSION}.jsonl").write_bytes(claude_code_log(str(workspace.root)))
    return workspace.options(claudeCode={"projectsDir": str(projects)})


async def test_a_followed_session_never_becomes_current_by_itself(
    workspace: Workspace, options: dict[str, Any]
) -> None:
    client = await start_server(workspace, options)
    try:
        listed = await listed_followed(client)
        assert (await request(client, "compact/currentSession", {}))["sessionId"] is None  # a new workspace
        assert not listed[FOLLOWED]["current"]
        mine = (await request(client, "compact/newSession", {"title": "My chat", "source": "chat"}))["sessionId"]
    finally:
        await stop_server(client)
    # Claude Code writes on after the user's chat was made: the next start (an editor reload) keeps the user's
    transcript = next(Path(options["claudeCode"]["projectsDir"]).glob("*/*.jsonl"))
    os.utime(transcript)
    client = await start_server(workspace, options)
    try:
        listed = await listed_followed(client)
        assert (await request(client, "compact/currentSession", {}))["sessionId"] == mine
        assert listed[mine]["current"] and not listed[FOLLOWED]["current"]
    finally:
        await stop_server(client)


async def test_import_to_continue_makes_a_managed_copy_once(
    workspace: Workspace, options: dict[str, Any], messages_api: MessagesApiStub
) -> None:
    client = await start_server(workspace, {**options, "baseUrl": messages_api.base_url})
    try:
        listed = await listed_followed(client)
        # the followed session refuses a compaction at once, naming Claude Code, without asking the model
        with pytest.raises(JsonRpcException, match="Claude Code") as refused:
            await command(client, "compact.compact", {"sessionId": FOLLOWED})
        assert refused.value.data["kind"] == "read_only" and not messages_api.bodies
        copy = await request(client, "compact/importSession", {"sessionId": FOLLOWED})
        assert copy["sessionId"] == f"cc-{SESSION}" and copy["messages"] == listed[FOLLOWED]["messages"]
        assert not copy.get("alreadyImported")
        listed = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        assert listed[copy["sessionId"]]["importedFrom"] == "Claude Code"  # its earlier answers are Claude Code's
        assert "importedFrom" not in listed[FOLLOWED] and listed[FOLLOWED]["owner"] == "Claude Code"
        assert (await request(client, "compact/currentSession", {}))["sessionId"] == copy["sessionId"]
        # the copy is the user's: it takes changes the followed session refuses
        await request(client, "compact/renameSession", {"sessionId": copy["sessionId"], "title": "Continued"})
        await request(client, "compact/selectSession", {"sessionId": FOLLOWED})
        again = await request(client, "compact/importSession", {"sessionId": FOLLOWED})
        assert again["alreadyImported"] is True and again["sessionId"] == copy["sessionId"]
        assert again["title"] == "Continued"
        assert (await request(client, "compact/currentSession", {}))["sessionId"] == copy["sessionId"]
        with pytest.raises(Exception, match="is not an agent's session followed here"):
            await request(client, "compact/importSession", {"sessionId": copy["sessionId"]})
    finally:
        await stop_server(client)


COMPACTED = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
"""Recorded from the real Claude Code CLI (tests/claude_code_cli/record_transcript.py): a manual then an automatic
compaction; like any copy, without the ``prompt_snapshot`` records its responses hang off."""


async def test_import_to_continue_a_compacted_session_carries_what_the_model_held(
    tmp_path: Path, workspace: Workspace
) -> None:
    session = json.loads(COMPACTED.read_text().splitlines()[0])["sessionId"]
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    (directory / f"{session}.jsonl").write_bytes(COMPACTED.read_bytes())
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        for _ in range(int(GUARD / 0.1)):
            if f"claude-{session}" in {s["sessionId"] for s in await request(client, "compact/sessions", {})}:
                break
            await asyncio.sleep(0.1)
        copy = await request(client, "compact/importSession", {"sessionId": f"claude-{session}"})
        view = await request(client, "compact/messages", {"sessionId": copy["sessionId"]})
    finally:
        await stop_server(client)
    assert copy["title"] == "Read the first seven modules"  # the user's first prompt, not the transcript's name
    texts = [
        str(b.get("text") or b.get("content") or "")
        for m in view["messages"]
        for b in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}])
    ]
    joined = "\n".join(texts)
    assert "This session is being continued from a previous conversation" in joined  # Claude Code's summary
    assert "def i0():" in joined  # the Read kept verbatim by the automatic compaction
    assert "Called the Read tool" in joined  # the file Claude Code re-attached
    assert "compact-lsp" in joined  # what our hook delivered at the compaction
    assert view["messages"][-1]["content"][-1]["text"] == "Read them all."  # the turn after it
    assert "(earlier conversation not available)" not in joined
    assert 4000 < copy["tokens"] < 6000, copy  # the context after the compaction: ~4.8k, not a 17-token stub
