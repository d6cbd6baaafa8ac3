"""compact/timeline through the real server: our session's microcompaction, full compaction and undo, and a followed
Claude Code session's two compactions with what its hook delivered, read back from the transcript (a receipt).
Reading the timeline writes nothing."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.agents.claude_code.transcripts import corpus_session
from tests.support.messages_api_stub import MessagesApiStub, api_error

from compact_lsp.agents.claude_code.live import project_directory
from compact_lsp.lsp.features.timeline import TIMELINE

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import append, command, new_session, request
from .test_commands import long_conversation

SESSION = "7acd37a8-2745-4b58-a8a9-46164b22ad9e"
FOLLOWED = f"claude-{SESSION}"


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
    clearing, compaction, _undo = rows
    assert (clearing["tokensBefore"], clearing["tokensAfter"]) == (micro["tokensBefore"], micro["tokensAfter"])
    assert [c["toolUseId"] for c in clearing["cleared"]] == [c["toolUseId"] for c in micro["cleared"]]
    assert (compaction["tokensBefore"], compaction["tokensAfter"]) == (full["tokensBefore"], full["tokensAfter"])
    assert compaction["trigger"] == "manual" and compaction["summaryIndex"] == 0 and compaction["summary"]
    assert compaction["fallback"] is True and compaction["summarizer"] == "offline"
    assert all(r["at"].endswith("Z") for r in rows)


def record(kind: str, uuid: str, parent: str | None, at: str, **fields: Any) -> bytes:
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "timestamp": at, **fields}
    return (json.dumps(line) + "\n").encode()


def compaction(n: int, parent: str, trigger: str, pre: int, post: int, hook_text: str, files: list[str]) -> bytes:
    """What Claude Code writes at a compaction: the boundary, the summary, re-attached files, the hook's context."""
    at = f"2026-12-05T10:0{n}:00.000Z"
    lines = [
        record("system", f"b{n}", None, at, subtype="compact_boundary", logicalParentUuid=parent,
               compactMetadata={"trigger": trigger, "preTokens": pre, "postTokens": post}),
        record("user", f"s{n}", f"b{n}", at, isCompactSummary=True, isVisibleInTranscriptOnly=True,
               message={"role": "user", "content": f"This session is being continued ... summary {n}."}),
        *[record("attachment", f"f{n}{i}", f"s{n}", at, attachment={"type": "file", "filename": f})
          for i, f in enumerate(files)],
        record("attachment", f"h{n}", f"s{n}", at, attachment={
            "type": "hook_additional_context", "content": [hook_text], "hookName": "SessionStart",
            "hookEvent": "SessionStart"}),
        record("user", f"u{n}", f"h{n}", at, message={"role": "user", "content": f"Go on, step {n}."}),
    ]  # fmt: skip
    return b"".join(lines)


async def test_a_followed_claude_code_sessions_timeline_has_its_compactions_and_the_hooks_receipts(
    tmp_path: Path, workspace: Workspace
) -> None:
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    transcript = directory / f"{SESSION}.jsonl"
    lines = corpus_session(SESSION).read_bytes().splitlines(keepends=True)
    last = json.loads(lines[-1])["uuid"]
    spilled = "<persisted-output>Output too large (24.1KB). Full output saved to: /tmp/x.txt\nPreview…"
    transcript.write_bytes(
        b"".join(lines)
        + compaction(1, last, "manual", 41_200, 9_800, "compact-lsp: files you were working on …" * 50, ["a.py"])
        + compaction(2, "u1", "auto", 167_300, 12_400, spilled, ["a.py", "b.py"])
    )
    before = transcript.read_bytes()
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        for _ in range(int(GUARD / 0.1)):  # the follower lists it once it has read the file
            if FOLLOWED in {s["sessionId"] for s in await request(client, "compact/sessions", {})}:
                break
            await asyncio.sleep(0.1)
        shown = await request(client, TIMELINE, {"sessionId": FOLLOWED})
    finally:
        await stop_server(client)
    assert transcript.read_bytes() == before
    assert shown["agent"] == "claude-code" and shown["thresholdTokens"] is None
    first, second = shown["rows"]
    assert (first["trigger"], first["tokensBefore"], first["tokensAfter"]) == ("manual", 41_200, 9_800)
    assert (second["trigger"], second["tokensBefore"], second["tokensAfter"]) == ("auto", 167_300, 12_400)
    assert first["summary"].endswith("summary 1.") and second["reattached"] == ["a.py", "b.py"]
    assert first["receipts"] == [{"hook": "SessionStart", "characters": 40 * 50, "spilled": False}]
    assert second["receipts"][0]["spilled"] is True
