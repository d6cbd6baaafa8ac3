"""An agent installed or first run after the editor opened: the folders its transcripts go in (Claude Code's
``~/.claude/projects/<project>``, Codex's ``~/.codex/sessions/YYYY/MM/DD``), and even ``~/.claude`` or ``~/.codex``
themselves, are made while the real server runs; its session is followed once they appear, without a restart."""

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

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import request

SESSION = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
THREAD = "01a24915-0369-7163-81ea-9e0d2d33ba44"


async def listed(client: LanguageClient, session_id: str) -> dict[str, Any] | None:
    """The session's row once the list holds it (polled: the list is what the editor asks for), else None."""
    for _ in range(int(GUARD / 0.1)):
        rows = [s for s in await request(client, "compact/sessions", {}) if s["sessionId"] == session_id]
        if rows:
            return rows[0]
        await asyncio.sleep(0.1)
    return None


def rollout_line(workspace: Workspace) -> str:
    records = [
        {"type": "session_meta", "payload": {"id": THREAD, "cwd": os.path.realpath(workspace.root)}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "explain main.py"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "It prints hello."}]}},
    ]  # fmt: skip
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("made", ["projects folder", "~/.claude"])
async def test_claude_codes_folders_made_after_start_are_followed(tmp_path: Path, made: str) -> None:
    workspace = Workspace(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    claude = home / ".claude"
    if made == "projects folder":
        (claude / "projects").mkdir(parents=True)
    projects = claude / "projects"
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        assert all(s["source"] != "claude-code" for s in await request(client, "compact/sessions", {}))
        directory = project_directory(str(projects), os.path.realpath(workspace.root))
        directory.mkdir(parents=True)  # Claude Code's first run: every missing folder at once
        (directory / f"{SESSION}.jsonl").write_bytes(corpus_session(SESSION).read_bytes())
        row = await listed(client, f"claude-{SESSION}")
        assert row is not None and row["readOnly"] is True and row["owner"] == "Claude Code"
    finally:
        await stop_server(client)


@pytest.mark.parametrize("made", ["day folder", "sessions folder", "~/.codex"])
async def test_codexs_folders_made_after_start_are_followed(tmp_path: Path, made: str) -> None:
    workspace = Workspace(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    codex_home = home / ".codex"
    if made == "day folder":
        (codex_home / "sessions" / "2026" / "12" / "05").mkdir(parents=True)  # yesterday's, already there
    elif made == "sessions folder":
        codex_home.mkdir()
    client = await start_server(workspace, workspace.options(codex={"home": str(codex_home)}))
    try:
        assert all(s["source"] != "codex" for s in await request(client, "compact/sessions", {}))
        day = codex_home / "sessions" / "2026" / "12" / "06"
        day.mkdir(parents=True)  # Codex's first session today (or at all)
        (day / f"rollout-2026-12-06T02-00-43-{THREAD}.jsonl").write_text(rollout_line(workspace))
        row = await listed(client, f"codex-{THREAD}")
        assert row is not None and row["readOnly"] is True and row["owner"] == "Codex"
        assert row["title"] == "explain main.py"
    finally:
        await stop_server(client)
