"""Following Claude Code's live transcripts: a real corpus transcript replayed line by line into the watched
project directory, as Claude Code writes it, and read through the real server."""

from __future__ import annotations

import asyncio
import json
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


COMPACTED = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
"""Recorded from the real Claude Code CLI (tests/claude_code_cli/record_transcript.py)."""
MCP_OUTPUT = "No MCP servers configured. Please run /doctor if this is unexpected. Otherwise, run `claude mcp`."


def slash_command_records(after: dict[str, Any], command: str, output: str) -> list[str]:
    """What Claude Code 2.1.332 logs for a slash command its user typed, after the record ``after``: the caveat,
    the command's name, its output (the three records of the recorded ``/compact``, another command's words)."""
    texts = [
        "<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and "
        "its output goes straight to the user. It's recorded here as context for later messages."
        "</local-command-caveat>",
        f"<command-name>{command}</command-name>\n            <command-message>{command[1:]}</command-message>\n"
        "            <command-args></command-args>",
        f"<local-command-stdout>{output}</local-command-stdout>",
    ]
    keep = ("sessionId", "cwd", "version", "gitBranch", "userType", "entrypoint", "timestamp")
    records, parent = [], after["uuid"]
    for i, text in enumerate(texts):
        uuid = f"{command[1:]}-record-{i}"
        record = {"parentUuid": parent, "isSidechain": False, "type": "user", "uuid": uuid,
                  "message": {"role": "user", "content": text}, **{k: after[k] for k in keep}}  # fmt: skip
        records.append(json.dumps({**record, "isMeta": True} if i == 0 else record) + "\n")
        parent = uuid
    return records


async def test_a_slash_commands_output_is_shown_as_its_result_without_tags(
    tmp_path: Path, workspace: Workspace
) -> None:
    lines = COMPACTED.read_text().splitlines(keepends=True)
    last = json.loads(next(line for line in reversed(lines) if '"type":"assistant"' in line))
    session = last["sessionId"]
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    (directory / f"{session}.jsonl").write_text("".join([*lines, *slash_command_records(last, "/mcp", MCP_OUTPUT)]))
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        entries: list[dict[str, Any]] = []
        for _ in range(int(GUARD / 0.1)):
            try:
                entries = (await request(client, "compact/transcript", {"sessionId": f"claude-{session}"}))["entries"]
            except Exception:  # not followed yet
                entries = []
            if "/mcp" in json.dumps(entries):
                break
            await asyncio.sleep(0.1)
    finally:
        await stop_server(client)
    shown = json.dumps(entries)
    assert "<local-command" not in shown and "<command-name>" not in shown, shown[:2000]
    blocks = [b for e in entries if e["kind"] == "message" for b in e["message"]["content"]]
    rows = {b["input"]["command"]: b["id"] for b in blocks if b["type"] == "tool_use" and b["name"] == "SlashCommand"}
    results = {b["tool_use_id"]: b["content"] for b in blocks if b["type"] == "tool_result"}
    assert results[rows["/mcp"]] == MCP_OUTPUT  # what the user saw, as the row's result
