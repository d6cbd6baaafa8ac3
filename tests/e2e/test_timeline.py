"""compact/timeline through the real server: our session's microcompaction, full compaction and undo, and a followed
Claude Code session's two compactions with what its hook delivered, read back from the transcript (a receipt).
Reading the timeline writes nothing."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.support.messages_api_stub import MessagesApiStub, api_error

from compact_lsp.agents.claude_code.live import project_directory
from compact_lsp.lsp.features.timeline import TIMELINE

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import append, command, new_session, request
from .test_commands import long_conversation


async def test_our_sessions_timeline_has_its_micro_full_and_undone_compactions(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.default = api_error(529, "overloaded_error", "Overloaded", headers={"x-should-retry": "false"})
    options = workspace.options(baseUrl=messages_api.base_url, microcompact={"keepRecent": 1})
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, long_conversation(rounds=3))
        micro = await command(lsp, "compact.microcompact", {"sessionId": session_id})
        full = await command(lsp, "compact.compact", {"sessionId": session_id})
        await command(lsp, "compact.undo", {"sessionId": session_id})
        journals = {p: p.read_bytes() for p in Path(options["sessionDir"]).rglob("*") if p.is_file()}
        shown = await request(lsp, TIMELINE, {"sessionId": session_id})
        after = {p: p.read_bytes() for p in Path(options["sessionDir"]).rglob("*") if p.is_file()}
    finally:
        await stop_server(lsp)
    assert after == journals  # read, never written
    assert shown["agent"] == "compact-lsp" and shown["thresholdTokens"] > 0
    rows = shown["rows"]
    assert [r["kind"] for r in rows] == ["micro", "full", "undo"], rows
    clearing, compaction, undo = rows
    assert (clearing["tokensBefore"], clearing["tokensAfter"]) == (micro["tokensBefore"], micro["tokensAfter"])
    assert [c["toolUseId"] for c in clearing["cleared"]] == [c["toolUseId"] for c in micro["cleared"]]
    assert (compaction["tokensBefore"], compaction["tokensAfter"]) == (full["tokensBefore"], full["tokensAfter"])
    assert compaction["trigger"] == "manual" and compaction["summaryIndex"] == 0 and compaction["summary"]
    assert compaction["fallback"] is True and compaction["summarizer"] == "offline"
    # the undo brings back what the compaction had summarised: its figures, reversed
    assert (undo["tokensBefore"], undo["tokensAfter"]) == (full["tokensAfter"], full["tokensBefore"])
    assert all(r["at"].endswith("Z") for r in rows)


FIXTURES = Path(__file__).parent.parent / "fixtures"
CLAUDE_CODE = FIXTURES / "claude_code" / "transcript-two-compactions.jsonl"
"""Recorded from the real Claude Code CLI with our hook (tests/claude_code_cli/record_transcript.py)."""
CODEX = FIXTURES / "codex" / "rollout-two-compactions.jsonl"
"""Recorded from the real Codex CLI with our hook (tests/codex/record_rollout.py)."""


async def followed_timeline(client: Any, session_id: str) -> dict[str, Any]:
    for _ in range(int(GUARD / 0.1)):  # the follower lists it once it has read the file
        if session_id in {s["sessionId"] for s in await request(client, "compact/sessions", {})}:
            break
        await asyncio.sleep(0.1)
    shown: dict[str, Any] = await request(client, TIMELINE, {"sessionId": session_id})
    return shown


async def test_a_followed_claude_code_sessions_timeline_has_its_compactions_and_the_hooks_receipts(
    tmp_path: Path, workspace: Workspace
) -> None:
    """A transcript the real Claude Code wrote: /compact (Claude Code re-attached five files, our hook delivered the
    other two), then an automatic compaction mid-turn at 990,694 tokens of its 1M window."""
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    session = json.loads(CLAUDE_CODE.read_text().splitlines()[0])["sessionId"]
    transcript = directory / f"{session}.jsonl"
    transcript.write_bytes(CLAUDE_CODE.read_bytes())
    before = transcript.read_bytes()
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        shown = await followed_timeline(client, f"claude-{session}")
    finally:
        await stop_server(client)
    assert transcript.read_bytes() == before
    assert shown["agent"] == "claude-code"
    assert shown["thresholdTokens"] == 1_000_000 - 33_000 and shown["disabledBy"] is None  # its window, its rule
    manual, auto = shown["rows"]
    assert (manual["trigger"], manual["tokensBefore"], manual["tokensAfter"]) == ("manual", 17_890, 7_439)
    assert (auto["trigger"], auto["tokensBefore"], auto["tokensAfter"]) == ("auto", 990_694, 4_099)
    assert manual["summary"].startswith("This session is being continued")
    assert [os.path.basename(p) for p in manual["reattached"]] == ["g.py", "f.py", "e.py", "d.py", "c.py"]
    (receipt,) = manual["receipts"]
    assert receipt["files"] == ["b.py", "a.py"] and not receipt["spilled"]  # what Claude Code left out, delivered
    assert 4_000 < receipt["characters"] <= 10_000
    assert auto["receipts"][0]["files"] == []  # Claude Code re-attached what was read: the hook sent the trail only


async def test_a_followed_codex_sessions_timeline_has_its_compactions_with_figures(
    tmp_path: Path, workspace: Workspace
) -> None:
    """A rollout the real Codex wrote: two automatic compactions in one turn, each with our hook's context."""
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "12" / "06"
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-12-06T02-15-01-01a24922-191a-7333-9cdb-081049550edc.jsonl"
    rollout.write_text(CODEX.read_text().replace("/work/proj", os.path.realpath(workspace.root)))
    (home / "config.toml").write_text("model_auto_compact_token_limit = 50000\n")
    before = rollout.read_bytes()
    client = await start_server(workspace, workspace.options(codex={"home": str(home)}))
    try:
        shown = await followed_timeline(client, "codex-01a24922-191a-7333-9cdb-081049550edc")
    finally:
        await stop_server(client)
    assert rollout.read_bytes() == before
    assert shown["agent"] == "codex" and shown["thresholdTokens"] == 50_000  # the user's config.toml
    first, second = shown["rows"]
    assert (first["trigger"], first["tokensBefore"], first["tokensAfter"]) == ("auto", 90_020, 4_000)
    assert (second["tokensBefore"], second["tokensAfter"]) == (90_020, 3_000)
    assert first["summary"] == "Summary 1: the user asked to read the modules."
    assert first["receipts"][0]["files"] == ["first_b.py", "first_a.py"]
    assert second["receipts"][0]["files"] == ["second_b.py", "second_a.py"]
    assert first["at"] == "2026-12-06T02:15:01.456Z"
