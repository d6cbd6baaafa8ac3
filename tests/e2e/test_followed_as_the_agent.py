"""Followed Claude Code and Codex sessions as their agent sees them, through the real server: the window the agent
works with (what ``inspect`` says for Claude Code, the rollout's own for Codex), the agent's last reported input
size as the gauge's figure with our count beside it, the agent's own name as the owner, every change refused
(microcompaction and undo included, even with nothing to clear or undo), and listed by when the agent last wrote,
not by when the server began following."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient
from tests.agents.codex.rollouts import head, line, turn

from compact_lsp.agents.claude_code.live import project_directory
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.codex.rollout import read_rollout

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

TWO_HOURS = 2 * 3600
CLAUDE_ID = "5f1e7c2a-0000-4000-8000-00000000c1a0"
THREAD = "0b5e2c1a-1111-4222-8333-944455557777"
CLAUDE_REPORTED = 49_400  # input + cache creation + cache reads of the last response
CODEX_REPORTED = 31_000


def claude_code_transcript(directory: Path, when: str) -> Path:
    """A Claude Code 2.1.332 transcript of a model with a 1M window (its ``cost-state`` says so)."""

    def rec(kind: str, uuid: str, parent: str | None, **extra: Any) -> dict[str, Any]:
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": CLAUDE_ID, "cwd": "/w",
                "timestamp": when, **extra}  # fmt: skip

    usage = {"input_tokens": 400, "cache_creation_input_tokens": 9_000, "cache_read_input_tokens": 40_000}
    message = {"role": "assistant", "id": "msg_1", "model": "claude-opus-5-5", "usage": usage,
               "content": [{"type": "text", "text": "b.py looks fine."}]}  # fmt: skip
    lines = [
        rec("user", "u1", None, message={"role": "user", "content": "Please look at b.py"}),
        rec("assistant", "m1", "u1", message=message),
        rec("user", "u2", "m1", message={"role": "user", "content": "Thanks"}),
        rec("assistant", "m2", "u2", message={**message, "id": "msg_2", "content": [{"type": "text", "text": "Ok."}]}),
        {"type": "cost-state", "sessionId": CLAUDE_ID, "modelUsage": {"claude-opus-5-5": {"contextWindow": 1_000_000}}},
    ]
    path = directory / f"{CLAUDE_ID}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def codex_rollout(day: Path, root: Path) -> Path:
    counted = line("event_msg", {"type": "token_count", "info": {
        "last_token_usage": {"input_tokens": CODEX_REPORTED}, "model_context_window": 258_400}})  # fmt: skip
    path = day / f"rollout-2026-12-01T00-00-00-{THREAD}.jsonl"
    path.write_bytes(b"".join([*head(root), *turn(0), counted, *turn(1)[:-1]]))
    return path


def aged(path: Path) -> float:
    """Make the file two hours old, as a transcript the agent last wrote then; returns that time."""
    then = time.time() - TWO_HOURS
    os.utime(path, (then, then))
    return then


async def listed_when_ready(client: LanguageClient, session_id: str) -> dict[str, Any]:
    """The session's ``compact/sessions`` item once it has been read (its messages are in)."""
    import asyncio

    for _ in range(int(GUARD / 0.1)):
        items = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        item = items.get(session_id)
        if item is not None and item["messages"] > 0:
            return item
        await asyncio.sleep(0.1)
    raise AssertionError(f"{session_id} was never listed")


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC).timestamp()


async def refused_everywhere(client: LanguageClient, session_id: str, owner: str, other: str) -> None:
    """Every change is refused naming the session's own agent, never the other one."""
    for name in ("compact.microcompact", "compact.undo", "compact.compact"):
        with pytest.raises(Exception, match=owner) as refused:
            await command(client, name, {"sessionId": session_id})
        assert other not in str(refused.value)


async def test_a_followed_claude_code_session_is_measured_and_owned_as_claude_code_does(
    workspace: Workspace, tmp_path: Path
) -> None:
    projects = tmp_path / "claude-projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    stamp = datetime.fromtimestamp(time.time() - TWO_HOURS, UTC).isoformat().replace("+00:00", "Z")
    transcript = claude_code_transcript(directory, stamp)
    then = aged(transcript)
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        item = await listed_when_ready(client, f"claude-{CLAUDE_ID}")
        inspected = import_claude_code(transcript, with_subagents=False).context_window
        assert inspected == 1_000_000 and item["usage"]["contextWindow"] == inspected, "the window inspect says"
        status = await command(client, "compact.status", {"sessionId": f"claude-{CLAUDE_ID}"})
        usage = status["usage"]
        assert usage["contextWindow"] == 1_000_000
        assert usage["total"] == usage["reported"] == CLAUDE_REPORTED, "the gauge shows what Claude Code reported"
        assert 0 < usage["estimated"] < CLAUDE_REPORTED, "our count beside it"
        assert usage["percent"] == round(100 * CLAUDE_REPORTED / 1_000_000, 1)
        assert item["owner"] == "Claude Code" and item["readOnly"] is True
        assert abs(epoch(item["updatedAt"]) - then) < 2, "dated by the transcript, not by the server's start"
        await refused_everywhere(client, f"claude-{CLAUDE_ID}", "Claude Code", "Codex")
    finally:
        await stop_server(client)


async def test_a_followed_codex_session_is_measured_and_owned_as_codex_does(
    workspace: Workspace, tmp_path: Path
) -> None:
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    rollout = codex_rollout(day, Path(os.path.realpath(workspace.root)))
    then = aged(rollout)
    client = await start_server(workspace, workspace.options(codex={"home": str(home)}))
    try:
        session_id = f"codex-{THREAD}"
        item = await listed_when_ready(client, session_id)
        assert read_rollout(str(rollout)).context_window == 258_400 == item["usage"]["contextWindow"]
        usage = (await command(client, "compact.status", {"sessionId": session_id}))["usage"]
        assert usage["contextWindow"] == 258_400
        assert usage["total"] == usage["reported"] == CODEX_REPORTED and 0 < usage["estimated"] < CODEX_REPORTED
        assert item["owner"] == "Codex" and item["readOnly"] is True
        assert abs(epoch(item["updatedAt"]) - then) < 2
        await refused_everywhere(client, session_id, "Codex", "Claude Code")
    finally:
        await stop_server(client)
