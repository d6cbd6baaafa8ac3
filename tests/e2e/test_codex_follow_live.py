"""Following a Codex rollout as Codex writes it, through the real server: the editor hears the usage grow with
each turn appended, a compaction in the rollout shrinks it to what Codex kept, and a rollout replaced by another
is read again; ``compact/status`` and ``compact/sessions`` answer from what was published after each update."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient
from tests.agents.codex.rollouts import assistant, compaction, head, turn

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

THREAD = "0b5e2c1a-1111-4222-8333-944455556666"
FOLLOWED = f"codex-{THREAD}"


async def next_usage(client: LanguageClient, check: Any) -> dict[str, Any]:
    """The next usage notification for the followed session that passes ``check``."""
    while True:
        note = await asyncio.wait_for(client.wait_for_notification("compact/didChangeUsage"), GUARD)
        params = note if isinstance(note, dict) else {"sessionId": note.session_id, "usage": note.usage}
        if params["sessionId"] == FOLLOWED and check(params["usage"]):
            return dict(params["usage"])


async def test_a_rollout_codex_writes_is_followed_as_it_grows(workspace: Workspace, tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    rollout = day / f"rollout-2026-12-01T00-00-00-{THREAD}.jsonl"
    root = Path(os.path.realpath(workspace.root))
    rollout.write_bytes(b"".join(head(root) + turn(0)))
    client = await start_server(workspace, workspace.options(codex={"home": str(home)}))
    try:
        first = await next_usage(client, lambda u: u["estimated"] > 0)
        totals = [first["estimated"]]  # our count: the gauge's total is Codex's own figure
        for n in range(1, 4):  # Codex appends a turn, line by line
            with rollout.open("ab") as f:
                for raw in turn(n):
                    f.write(raw)
                    f.flush()
            usage = await next_usage(client, lambda u, n=n: u["reported"] == 1000 + n)
            totals.append(usage["estimated"])
        assert totals == sorted(totals) and totals[-1] > totals[0]
        status = await command(client, "compact.status", {"sessionId": FOLLOWED})
        assert status["usage"]["estimated"] == totals[-1] and status["usage"]["total"] == 1003
        [listed] = [s for s in await request(client, "compact/sessions", {}) if s["sessionId"] == FOLLOWED]
        assert listed["readOnly"] is True and listed["source"] == "codex" and listed["title"] == "look at f0.py"

        with rollout.open("ab") as f:  # Codex compacts: the model keeps the first request and the summary's turn
            f.write(compaction() + assistant("Continuing."))
        after = await next_usage(client, lambda u: u["estimated"] < totals[0])
        assert after["estimated"] < totals[0]

        replaced = day / "replacement.tmp"
        replaced.write_bytes(b"".join(head(root) + turn(7) + turn(8)))
        os.replace(replaced, rollout)  # another file in its place: read again from its start
        again = await next_usage(client, lambda u: u["reported"] == 1008)
        assert again["estimated"] > after["estimated"]
        [listed] = [s for s in await request(client, "compact/sessions", {}) if s["sessionId"] == FOLLOWED]
        assert listed["title"] == "look at f7.py"
    finally:
        await stop_server(client)
