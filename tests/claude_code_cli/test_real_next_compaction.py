"""The warning before Claude Code compacts by itself, live: the real Claude Code (pinned in VERSION) runs turn after
turn in a workspace while our real server, started over stdio as an editor starts it, follows its transcript. It is
Claude Code's first run: the server starts before ``~/.claude`` exists and follows the session once Claude Code makes
its folders.

The loopback Messages API stub reports a context that grows each turn (100,000, 200,000, then 940,000 input tokens
of the model's window); the fourth turn's first answer reports 990,000, past Claude Code's threshold, and Claude Code
compacts by itself before its next request. What the server answers for the followed session (``compact/status``,
``compact/sessions`` and the ``compact/didChangeUsage`` notifications the editors draw their gauge and warning from)
must say the compaction is near, with tokens and turns left, before Claude Code writes its automatic
``compact_boundary``, and far again after it.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient
from tests.e2e.conftest import GUARD, Workspace, start_server, stop_server
from tests.e2e.conversation import request
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

from .claude_cli import ClaudeCode, is_compaction
from .conftest import source

GROWING = (100_000, 200_000, 940_000)
"""The input size the stub reports for each turn's answer before the one that crosses the threshold."""
PAST = 990_000
"""What the fourth turn's first answer reports: past Claude Code's threshold, so it compacts before its next request."""
AFTER = 21_000
"""What the answer after the compaction reports."""
THRESHOLD = 967_000
"""Claude Code's automatic compaction in its 1,000,000-token window: the window less 33,000."""


@pytest.fixture
def cc_in_workspace(claude_code_binary: Path) -> Iterator[tuple[ClaudeCode, Workspace]]:
    with tempfile.TemporaryDirectory(prefix="cc-next-") as tmp, MessagesApiStub() as stub:
        workspace = Workspace(Path(tmp))
        yield ClaudeCode(claude_code_binary, Path(tmp) / "home", workspace.root, stub), workspace


async def usage_once_read(client: LanguageClient, session: str, total: int) -> dict[str, Any]:
    """The followed session's usage from ``compact/status`` once the server shows the size ``total``."""
    usage: dict[str, Any] = {}
    for _ in range(int(GUARD / 0.05)):
        try:
            usage = (await request(client, "compact/status", {"sessionId": session}))["usage"]
        except Exception:  # not followed yet: Claude Code's first lines are still coming
            usage = {}
        if usage.get("total") == total and "nextCompaction" in usage:
            return usage
        await asyncio.sleep(0.05)
    raise AssertionError(f"the status never showed {total} tokens: {usage}")


async def test_the_warning_comes_before_the_real_claude_codes_automatic_compaction(
    cc_in_workspace: tuple[ClaudeCode, Workspace],
) -> None:
    cc, workspace = cc_in_workspace
    project = cc.project
    for name in "abcd":
        (project / f"{name}.py").write_text(source(name, 40))
    projects = cc.home / ".claude" / "projects"
    cc.home.mkdir()  # Claude Code's first run: it makes ~/.claude and the project's folder as the server waits
    client = await start_server(workspace, workspace.options(claudeCode={"projectsDir": str(projects)}))
    notes = Heard()

    @client.feature("compact/didChangeUsage")
    def on_usage(params: dict[str, Any]) -> None:
        notes.note(params)

    seen: list[dict[str, Any]] = []
    try:
        cc.push(tool_call("Read", {"file_path": str(project / "a.py")}), reply("Read a.py.", input_tokens=GROWING[0]))
        session = (await asyncio.to_thread(cc.run, "Read a.py"))["session_id"]
        followed = f"claude-{session}"
        seen.append(await usage_once_read(client, followed, GROWING[0]))
        for name, tokens in zip("bc", GROWING[1:], strict=True):
            cc.push(reply(f"Read {name}.py.", input_tokens=tokens))
            await asyncio.to_thread(cc.run, f"Now {name}.py", resume=session)
            seen.append(await usage_once_read(client, followed, tokens))
        listed_near = await listed(client, followed, GROWING[2])
        heard_before = await notes.until(followed, GROWING[2])
        assert not boundaries(cc, session), "Claude Code compacted before the turn that crosses its threshold"
        n = len(cc.model_requests())
        cc.push(
            tool_call("Read", {"file_path": str(project / "d.py")}, input_tokens=PAST),
            reply("Read d.py after compacting.", input_tokens=AFTER),
        )
        await asyncio.to_thread(cc.run, "And d.py", resume=session)
        assert sum(is_compaction(r.body) for r in cc.after(n)) == 1, "Claude Code did not compact by itself"
        after = await usage_once_read(client, followed, AFTER)
        listed_after = await listed(client, followed, AFTER)
        timeline = await request(client, "compact/timeline", {"sessionId": followed})
        heard_after = await notes.until(followed, AFTER)
    finally:
        await stop_server(client)
    (boundary,) = boundaries(cc, session)
    calm, near = [u["nextCompaction"] for u in seen[:2]], seen[2]["nextCompaction"]
    for shown in calm:
        assert shown["thresholdTokens"] == THRESHOLD and not shown["near"], shown
        assert shown["origin"].startswith("Claude Code's default") and shown["disabledBy"] is None
        assert shown["tokensLeft"] > THRESHOLD // 10 and shown["turnsLeft"] > 2, shown
    assert seen[0]["contextWindow"] == 1_000_000
    # the warning, before Claude Code wrote its automatic boundary: what is left, in tokens and turns
    assert near["near"] and near["tokensLeft"] == THRESHOLD - GROWING[2] and near["turnsLeft"] == 1, near
    assert listed_near == near, "the session list and the status disagree"
    assert any(u["total"] == GROWING[2] and u["nextCompaction"]["near"] for u in heard_before), heard_before
    assert not any(u["nextCompaction"]["near"] for u in heard_before if u["total"] < GROWING[2]), heard_before
    # Claude Code then compacted by itself, past the threshold the warning counted with
    metadata = boundary["compactMetadata"]
    assert metadata["trigger"] == "auto" and metadata["preTokens"] >= THRESHOLD > GROWING[2], metadata
    (row,) = timeline["rows"]
    assert timeline["thresholdTokens"] == THRESHOLD and row["trigger"] == "auto", timeline
    assert row["tokensBefore"] == metadata["preTokens"], row
    # and after it, the next one is far again, in every answer the editors read
    shown = after["nextCompaction"]
    assert not shown["near"] and shown["tokensLeft"] == THRESHOLD - AFTER and shown["turnsLeft"] > 2, shown
    assert listed_after == shown, "the session list and the status disagree"
    assert not heard_after[-1]["nextCompaction"]["near"], heard_after[-1]
    shown_each = [(u["total"], u["nextCompaction"]) for u in [*seen, after]]
    figures = [f"{t:,}: {n['tokensLeft']:,} / {n['turnsLeft']} turns left, near={n['near']}" for t, n in shown_each]
    print(f"shown: {'; '.join(figures)}; Claude Code compacted at {metadata['preTokens']:,} (threshold {THRESHOLD:,})")


class Heard:
    """The ``compact/didChangeUsage`` notifications heard (the editors' gauge and warning), in order."""

    def __init__(self) -> None:
        self.usages: list[tuple[str, dict[str, Any]]] = []
        self._arrived = asyncio.Event()

    def note(self, params: dict[str, Any]) -> None:
        self.usages.append((params["sessionId"], params["usage"]))
        self._arrived.set()

    async def until(self, session: str, total: int) -> list[dict[str, Any]]:
        """The session's usages heard up to the first that shows ``total`` tokens (waiting for it)."""
        while True:
            self._arrived.clear()
            usages = [u for s, u in self.usages if s == session]
            at = next((i for i, u in enumerate(usages) if u["total"] == total), None)
            if at is not None:
                return usages[: at + 1]
            await asyncio.wait_for(self._arrived.wait(), GUARD)


def boundaries(cc: ClaudeCode, session: str) -> list[dict[str, Any]]:
    return [r for r in cc.records(session) if r.get("subtype") == "compact_boundary"]


async def listed(client: LanguageClient, session: str, total: int) -> dict[str, Any]:
    """The followed session's ``nextCompaction`` in ``compact/sessions`` (the editors' session picker), once it
    lists the size ``total`` (while the server reads the CLI's last lines, the list shows the update before)."""
    usage: dict[str, Any] = {}
    for _ in range(int(GUARD / 0.05)):
        items = [s for s in await request(client, "compact/sessions", {}) if s["sessionId"] == session]
        usage = items[0]["usage"] if items else {}
        if usage.get("total") == total:
            return dict(usage["nextCompaction"])
        await asyncio.sleep(0.05)
    raise AssertionError(f"the session list never showed {total} tokens: {usage}")
