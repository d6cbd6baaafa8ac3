"""The warning before an agent compacts, through the real server: a transcript the real Claude Code wrote
(tests/fixtures/claude_code/transcript-two-compactions.jsonl, its automatic compaction at 990,694 tokens of a 1M
window) replayed line by line into the folder the server follows. The status says how far Claude Code's next
automatic compaction is, and says it is near before the boundary is written; a setting that turns it off is named."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from compact_lsp.agents.claude_code.live import project_directory

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import request
from .test_timeline import CLAUDE_CODE

LINES = CLAUDE_CODE.read_text().splitlines(keepends=True)
SESSION = json.loads(LINES[0])["sessionId"]
FOLLOWED = f"claude-{SESSION}"


def reported(line: str) -> int | None:
    """The input size an assistant line reports (what the status's gauge shows once the server read it)."""
    record = json.loads(line)
    usage = (record.get("message") or {}).get("usage") if record.get("type") == "assistant" else None
    if not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(v for k in keys if isinstance(v := usage.get(k), int))


async def next_compaction_once_read(client: Any, total: int) -> dict[str, Any]:
    """The status's ``nextCompaction`` once the server shows the size ``total``; the gauge's level agrees."""
    usage: dict[str, Any] = {}
    for _ in range(int(GUARD / 0.05)):
        try:
            usage = (await request(client, "compact/status", {"sessionId": FOLLOWED}))["usage"]
        except Exception:  # not followed yet: its first lines are still coming
            usage = {}
        if usage.get("total") == total and "nextCompaction" in usage:
            next_one = dict(usage["nextCompaction"])
            level = "critical" if next_one["tokensLeft"] == 0 else "warning" if next_one["near"] else "ok"
            if next_one["thresholdTokens"] is not None:  # turned off: the level is the window's filling
                assert usage["level"] == level, f"the gauge says {usage['level']}, its next compaction {next_one}"
            return next_one
        await asyncio.sleep(0.05)
    raise AssertionError(f"the status never showed {total} tokens: {usage}")


async def test_the_warning_comes_before_claude_codes_automatic_compaction(tmp_path: Path, workspace: Workspace) -> None:
    projects = tmp_path / ".claude" / "projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    transcript = directory / f"{SESSION}.jsonl"
    boundaries = [i for i, line in enumerate(LINES) if '"compact_boundary"' in line]
    auto_at = next(i for i in boundaries if '"trigger": "auto"' in LINES[i] or '"trigger":"auto"' in LINES[i])
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    seen: list[tuple[int, dict[str, Any]]] = []
    try:
        for i, line in enumerate(LINES[:auto_at]):
            with transcript.open("a") as f:
                f.write(line)
            total = reported(line)
            if total is not None and i > boundaries[0]:  # after the manual compaction: Claude Code's window is known
                seen.append((i, await next_compaction_once_read(client, total)))
        (item,) = [s for s in await request(client, "compact/sessions", {}) if s["sessionId"] == FOLLOWED]
    finally:
        await stop_server(client)
    assert seen, "no turn after the manual compaction"
    calm = [n for _, n in seen if not n["near"]]
    near = [n for _, n in seen if n["near"]]
    assert calm and calm[0]["thresholdTokens"] == 967_000 and calm[0]["tokensLeft"] > 900_000
    assert calm[0]["origin"].startswith("Claude Code's default") and calm[0]["disabledBy"] is None
    assert calm[0]["turnsLeft"] is not None and calm[0]["perTurn"] > 0
    assert near, "the status never warned before Claude Code compacted by itself"
    assert near[-1]["tokensLeft"] == 0 and seen[-1][1]["near"]  # the last line before the boundary: at it
    assert item["usage"]["nextCompaction"] == seen[-1][1], "the session list and the status disagree"


async def test_a_setting_that_turns_claude_codes_automatic_compaction_off_is_named(
    tmp_path: Path, workspace: Workspace
) -> None:
    projects = tmp_path / ".claude" / "projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"env": {"DISABLE_AUTO_COMPACT": "1"}}))
    auto_at = next(i for i, line in enumerate(LINES) if '"compact_boundary"' in line and "auto" in line)
    (directory / f"{SESSION}.jsonl").write_text("".join(LINES[:auto_at]))
    last = next(t for line in reversed(LINES[:auto_at]) if (t := reported(line)) is not None)
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        shown = await next_compaction_once_read(client, last)
    finally:
        await stop_server(client)
    assert shown["thresholdTokens"] is None and not shown["near"]
    assert shown["disabledBy"] == "DISABLE_AUTO_COMPACT in ~/.claude/settings.json (env)"


async def test_an_older_claude_code_is_held_to_its_own_rule_and_named(tmp_path: Path, workspace: Workspace) -> None:
    """The same transcript as Claude Code 2.0.14 would have written it: that version compacted at the window less
    45,000 (955,000 at 1M, read in its npm package), so the status says so and names the version."""
    projects = tmp_path / ".claude" / "projects"
    directory = project_directory(str(projects), os.path.realpath(workspace.root))
    directory.mkdir(parents=True)
    auto_at = next(i for i, line in enumerate(LINES) if '"compact_boundary"' in line and "auto" in line)
    older = [line.replace('"version":"2.1.332"', '"version":"2.0.14"') for line in LINES[:auto_at]]
    assert older != LINES[:auto_at]
    (directory / f"{SESSION}.jsonl").write_text("".join(older))
    last = next(t for line in reversed(older) if (t := reported(line)) is not None)
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    try:
        shown = await next_compaction_once_read(client, last)
    finally:
        await stop_server(client)
    assert shown["thresholdTokens"] == 955_000 and shown["near"] and shown["tokensLeft"] == 0
    assert shown["origin"].startswith("Claude Code 2.0.14 compacts at the window less 45,000")
