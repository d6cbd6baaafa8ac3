"""Following a Gemini CLI session as Gemini writes it, through the real server: a real session file (written by
Gemini CLI 0.61.0 in the real-CLI tier's TUI, compressed once) is listed read-only with Gemini's own figures and
name, in the folder ``~/.gemini/projects.json`` names for the workspace; it follows what Gemini writes next; every
change is refused naming Gemini CLI; and it can be imported to continue."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gemini_cli" / "compressed-session.jsonl"
SESSION = "4dbfce25-09b5-4d9d-b7c0-89edca1e08c3"
FOLLOWED = "gemini-2026-12-06T02-16-4dbfce25"


async def listed(client: LanguageClient, check: Any) -> dict[str, Any]:
    items: dict[str, Any] = {}
    for _ in range(int(GUARD / 0.1)):
        items = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        item = items.get(FOLLOWED)
        if item is not None and check(item):
            return item
        await asyncio.sleep(0.1)
    raise AssertionError(f"{FOLLOWED} never listed as expected: {items.get(FOLLOWED)}")


async def test_a_gemini_cli_session_is_followed_as_gemini_writes_it(workspace: Workspace, tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = os.path.realpath(workspace.root)
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {root: "ws-short"}}))
    chats = home / ".gemini" / "tmp" / "ws-short" / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2026-12-06T02-16-4dbfce25.jsonl"
    session.write_bytes(FIXTURE.read_bytes().replace(b"/tmp/gx/tui/proj", root.encode()))
    client = await start_server(workspace, workspace.options(geminiCli={"home": str(home)}))
    try:
        item = await listed(client, lambda i: i["messages"] > 0)
        assert item["source"] == "gemini-cli" and item["owner"] == "Gemini CLI" and item["readOnly"] is True
        assert item["title"] == "Read lines 100 to 120 of big.py"
        assert item["usage"]["total"] == 6_000  # Gemini's own last figure, in its window
        assert item["usage"]["contextWindow"] == 1_048_576 and item["usage"]["autoCompactThreshold"] == 524_288
        before = item["messages"]
        model = await request(client, "compact/messages", {"sessionId": FOLLOWED})
        chat = await request(client, "compact/transcript", {"sessionId": FOLLOWED})
        kinds = [e["kind"] for e in chat["entries"]]  # the whole conversation, as its user saw it
        assert before == len(model["messages"]) and "message" in kinds[: kinds.index("compaction")]

        with session.open("a") as f:  # the user asks again; Gemini answers and reports 7,000 tokens
            f.write(json.dumps({"id": "u4", "timestamp": "t", "type": "user", "content": [{"text": "and step_42"}]})
                    + "\n")  # fmt: skip
            f.write(json.dumps({"id": "g4", "timestamp": "t", "type": "gemini", "content": "It returns 42.",
                                "tokens": {"input": 7_000}, "model": "gemini-2.5-flash"}) + "\n")  # fmt: skip
        grown = await listed(client, lambda i: i["usage"]["total"] == 7_000)
        assert grown["messages"] == before + 2

        timeline = await request(client, "compact/timeline", {"sessionId": FOLLOWED})  # its compression, a marker
        assert timeline["agent"] == "gemini-cli"
        [row] = timeline["rows"]
        assert (row["trigger"], row["tokensBefore"], row["tokensAfter"]) == ("auto", 900_000, 6_000)
        assert row["summary"] == "the user read big.py lines 100-120" and row["at"] == "2026-12-06T02:16:46.977Z"

        chat = await request(client, "compact/transcript", {"sessionId": FOLLOWED})  # all of it, as the user saw it
        entries = chat["entries"]
        marker = next(e for e in entries if e["kind"] == "compaction")
        assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("auto", 900_000, 6_000)
        said = [b.get("text") for e in entries if e["kind"] == "message" for b in e["message"]["content"]]
        assert said[0] == "Read lines 100 to 120 of big.py"  # compressed away from the model, not from the chat
        assert said[-2:] == ["and step_42", "It returns 42."] and entries.index(marker) == 4

        for name in ("compact.microcompact", "compact.undo", "compact.compact"):
            with pytest.raises(Exception, match="Gemini CLI") as refused:
                await command(client, name, {"sessionId": FOLLOWED})
            assert "install-hook" in str(refused.value)

        copy = await request(client, "compact/importSession", {"sessionId": FOLLOWED})  # Import to continue
        assert copy["sessionId"] == f"gm-{SESSION}" and copy["messages"] == grown["messages"]
    finally:
        await stop_server(client)
