"""Following Claude Code's live transcripts: a real corpus transcript replayed line by line into the watched
project directory, as Claude Code writes it, and read through the real server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient
from tests.agents.claude_code.transcripts import corpus_session

from compact_lsp.agents.claude_code.live import project_directory
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

SESSION = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
FOLLOWED = f"claude-{SESSION}"


def expected_total(transcript: Path) -> int:
    """What the server should count for the whole transcript: the importer's messages, counted afresh."""
    imported = import_claude_code(transcript, with_subagents=False)
    session = ContextSession("x", settings=EngineSettings(), counter=TiktokenCounter())
    session.append(imported.session.messages)
    return session.usage().total


async def status_total(client: LanguageClient, want: int) -> int:
    """Poll the followed session's status until our count (``estimated``; its total is Claude Code's own figure)
    is ``want`` (notifications sent while no one waits for them are not queued by the test client); the last
    count seen when the guard runs out."""
    total = -1
    for _ in range(int(GUARD / 0.1)):
        total = (await command(client, "compact.status", {"sessionId": FOLLOWED}))["usage"]["estimated"]
        if total == want:
            break
        await asyncio.sleep(0.1)
    return total


async def usage_of(client: LanguageClient, session_id: str, at_least: int = 1) -> dict[str, Any]:
    """The next usage notification for the session whose total reaches ``at_least``."""
    while True:
        note = await asyncio.wait_for(client.wait_for_notification("compact/didChangeUsage"), GUARD)
        params = note if isinstance(note, dict) else {"sessionId": note.session_id, "usage": note.usage}
        if params["sessionId"] == session_id and params["usage"]["estimated"] >= at_least:
            return params["usage"]


@pytest.fixture
def setup(tmp_path: Path, workspace: Workspace) -> tuple[Path, list[bytes], dict[str, Any]]:
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    lines = corpus_session(SESSION).read_bytes().splitlines(keepends=True)
    return directory / f"{SESSION}.jsonl", lines, workspace.options(claudeCode={"projectsDir": str(projects)})


async def test_a_transcript_claude_code_writes_is_followed_read_only(
    workspace: Workspace, setup: tuple[Path, list[bytes], dict[str, Any]], tmp_path: Path
) -> None:
    transcript, lines, options = setup
    half = len(lines) // 2
    transcript.write_bytes(b"".join(lines[:half]))
    client = await start_server(workspace, options)
    try:
        first = await usage_of(client, FOLLOWED)
        listed = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        item = listed[FOLLOWED]
        assert item["source"] == "claude-code" and item["readOnly"] is True
        assert item["title"] and item["messages"] > 0

        # Claude Code appends the rest, the last line torn in two writes
        with transcript.open("ab") as f:
            for line in lines[half:-1]:
                f.write(line)
            f.write(lines[-1][:10])
            f.flush()
            await asyncio.sleep(0.3)
            f.write(lines[-1][10:])
        whole = expected_total(corpus_session(SESSION))
        assert await status_total(client, whole) == whole > first["estimated"]

        # everything that reads works; what would change the context is refused, naming Claude Code
        status = await command(client, "compact.status", {"sessionId": FOLLOWED})
        assert status["sessionId"] == FOLLOWED and status["usage"]["estimated"] == whole
        assert status["readFiles"] and status["biggestItems"]
        assert status["usage"].get("reported"), "the transcript's own usage is shown beside our estimate"
        preview = await command(client, "compact.rehydrationPreview", {"sessionId": FOLLOWED})
        assert "candidates" in preview
        entries = (await request(client, "compact/transcript", {"sessionId": FOLLOWED}))["entries"]
        assert entries and all(e["kind"] == "message" for e in entries)
        for name in ("compact.microcompact", "compact.compact"):
            with pytest.raises(Exception, match="Claude Code"):
                await command(client, name, {"sessionId": FOLLOWED})
        with pytest.raises(Exception, match="Claude Code"):
            await request(client, "compact/renameSession", {"sessionId": FOLLOWED, "title": "mine now"})
        await request(client, "compact/selectSession", {"sessionId": FOLLOWED})
        assert (await request(client, "compact/currentSession", {}))["sessionId"] == FOLLOWED

        # Claude Code rewrites the file (a rewind): it is read again from the top
        replaced = transcript.with_suffix(".tmp")
        replaced.write_bytes(b"".join(lines[:half]))
        replaced.replace(transcript)
        assert await status_total(client, first["estimated"]) == first["estimated"]
    finally:
        await stop_server(client)


async def test_follow_off_lists_no_claude_code_session(
    workspace: Workspace, setup: tuple[Path, list[bytes], dict[str, Any]]
) -> None:
    transcript, lines, options = setup
    transcript.write_bytes(b"".join(lines))
    client = await start_server(workspace, {**options, "claudeCode": {**options["claudeCode"], "follow": False}})
    try:
        listed = await request(client, "compact/sessions", {})
        assert all(s["source"] != "claude-code" for s in listed)
    finally:
        await stop_server(client)


async def test_a_project_directory_made_after_start_is_followed_under_claude_codes_name(tmp_path: Path) -> None:
    """Claude Code's first run in a project comes after the editor opened it: the folder it makes then (every
    character but a letter or digit as "-", here "_", spaces and non-ASCII) is found and its transcript followed."""
    workspace = Workspace(tmp_path / "work_repo über 🚀")
    projects = tmp_path / "claude-projects"
    projects.mkdir()
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        assert all(s["source"] != "claude-code" for s in await request(client, "compact/sessions", {}))
        real = os.path.realpath(workspace.root)
        directory = projects / "".join(  # JavaScript's /[^a-zA-Z0-9]/g, one "-" per UTF-16 unit
            chr(u) if chr(u).isascii() and chr(u).isalnum() else "-"
            for u in memoryview(real.encode("utf-16-le")).cast("H")
        )
        assert "work-repo--ber---" in directory.name
        directory.mkdir()
        (directory / f"{SESSION}.jsonl").write_bytes(corpus_session(SESSION).read_bytes())
        usage = await usage_of(client, FOLLOWED)
        assert usage["estimated"] == expected_total(corpus_session(SESSION))
    finally:
        await stop_server(client)
