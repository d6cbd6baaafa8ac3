"""Following a Qwen Code session as Qwen writes it, through the real server: a real transcript (written by Qwen Code
0.24.4 in the real-CLI tier) is listed read-only with Qwen's own figures and name, grows as lines are appended, a
``/compress`` appended starts its window again from what Qwen kept, its compactions are its timeline, every change
is refused naming Qwen Code; and ``compact.installQwenCodeHook`` writes the project's ``.qwen/settings.json``."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from compact_lsp.agents.qwen_code.transcript import transcript_dir

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import command, request

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "qwen_code" / "automatic-compaction.jsonl"
SESSION = "3841d47e-2df8-4f1a-a35b-820243284400"
FOLLOWED = f"qwen-{SESSION}"


def record(kind: str, message: dict[str, Any] | None = None, **extra: Any) -> bytes:
    body = {"uuid": f"x-{kind}-{len(extra)}", "sessionId": SESSION, "type": kind, **extra}
    if message is not None:
        body["message"] = message
    return (json.dumps(body) + "\n").encode()


async def listed(client: LanguageClient, check: Any) -> dict[str, Any]:
    for _ in range(int(GUARD / 0.1)):
        items = {s["sessionId"]: s for s in await request(client, "compact/sessions", {})}
        item = items.get(FOLLOWED)
        if item is not None and check(item):
            return item
        await asyncio.sleep(0.1)
    raise AssertionError(f"{FOLLOWED} never listed as expected: {items.get(FOLLOWED)}")


async def test_a_qwen_code_session_is_followed_as_qwen_writes_it(workspace: Workspace, tmp_path: Path) -> None:
    home = tmp_path / "home" / ".qwen"
    chats = Path(transcript_dir(os.path.realpath(workspace.root), str(home)))
    assert chats.parent.name == os.path.realpath(workspace.root).replace("/", "-").replace("_", "-")  # as Qwen
    chats.mkdir(parents=True)
    root = os.path.realpath(workspace.root)
    transcript = chats / f"{SESSION}.jsonl"
    transcript.write_bytes(FIXTURE.read_bytes().replace(b"/tmp/qwen44/run/proj", root.encode()))
    # another project whose name Qwen folds into the same folder ("_" and "-" both become "-"): not this one's
    twin = root.replace("-", "_", 1)
    assert twin != root and transcript_dir(twin, str(home)) == str(chats)
    (chats / "twin.jsonl").write_text(json.dumps({"type": "user", "sessionId": "twin", "cwd": twin,
        "message": {"role": "user", "parts": [{"text": "not yours"}]}}) + "\n")  # fmt: skip
    client = await start_server(workspace, workspace.options(qwenCode={"home": str(home)}))
    try:
        item = await listed(client, lambda i: i["messages"] > 0)
        assert "qwen-twin" not in {s["sessionId"] for s in await request(client, "compact/sessions", {})}
        assert item["source"] == "qwen-code" and item["owner"] == "Qwen Code" and item["readOnly"] is True
        assert item["title"] == "please read big.py around line 1000"
        assert item["usage"]["contextWindow"] == 100_000 and item["usage"]["total"] == 5_000  # Qwen's own figures
        before = item["usage"]["estimated"]
        model = await request(client, "compact/messages", {"sessionId": FOLLOWED})
        chat = await request(client, "compact/transcript", {"sessionId": FOLLOWED})
        kinds = [e["kind"] for e in chat["entries"]]  # the whole conversation, as its user saw it
        assert item["messages"] == len(model["messages"]) and "message" in kinds[: kinds.index("compaction")]

        with transcript.open("ab") as f:  # the user asks again; Qwen answers and reports 7,000 tokens
            f.write(record("user", {"role": "user", "parts": [{"text": "and the next region? " + "x " * 400}]}))
            f.write(record("assistant", {"role": "model", "parts": [{"text": "Lines 1041-1080 are handlers."}]},
                           usageMetadata={"promptTokenCount": 7_000}, contextWindowSize=100_000))  # fmt: skip
        grown = await listed(client, lambda i: i["usage"]["total"] == 7_000)
        assert grown["usage"]["estimated"] > before

        summary = "<state_snapshot>reviewed big.py</state_snapshot>"
        with transcript.open("ab") as f:  # /compress: the model keeps only the summary and Qwen's reply to it
            f.write(record("system", subtype="chat_compression", systemPayload={
                "info": {"originalTokenCount": 7_000, "newTokenCount": 300, "triggerReason": "manual"},
                "compressedHistory": [{"role": "user", "parts": [{"text": summary}]},
                                      {"role": "model", "parts": [{"text": "Got it."}]}]}))  # fmt: skip
            f.write(record("user", {"role": "user", "parts": [{"text": "thanks"}]}))
            f.write(record("assistant", {"role": "model", "parts": [{"text": "You're welcome."}]},
                           usageMetadata={"promptTokenCount": 400}))  # fmt: skip
        after = await listed(client, lambda i: i["usage"]["total"] == 400)
        assert after["usage"]["estimated"] < before and after["messages"] <= 4

        timeline = await request(client, "compact/timeline", {"sessionId": FOLLOWED})
        assert timeline["agent"] == "qwen-code"
        assert [(r["trigger"], r["tokensBefore"], r["tokensAfter"]) for r in timeline["rows"]] == [
            ("auto", 72_689, 70_480), ("manual", 7_000, 300)
        ]  # fmt: skip
        assert timeline["rows"][1]["summary"] == "reviewed big.py"  # the snapshot's text, as the chat's marker

        chat = await request(client, "compact/transcript", {"sessionId": FOLLOWED})  # all of it, as the user saw it
        entries = chat["entries"]
        markers = [(e["trigger"], e["tokensBefore"], e["tokensAfter"]) for e in entries if e["kind"] == "compaction"]
        assert markers == [("auto", 72_689, 70_480), ("manual", 7_000, 300)]
        said = [b.get("text") for e in entries if e["kind"] == "message" for b in e["message"]["content"]]
        assert said[0] == "please read big.py around line 1000"  # compacted away from the model, not from the chat
        assert said[-2:] == ["thanks", "You're welcome."] and "Got it." not in said
        stamps = [(e["at"], e["summary"]) for e in entries if e["kind"] == "compaction"]
        assert stamps == [(r["at"], r["summary"]) for r in timeline["rows"]] and stamps[0][0]  # one reading of both

        for name in ("compact.microcompact", "compact.undo", "compact.compact"):
            with pytest.raises(Exception, match="Qwen Code") as refused:
                await command(client, name, {"sessionId": FOLLOWED})
            assert "/compress" in str(refused.value)

        copy = await request(client, "compact/importSession", {"sessionId": FOLLOWED})  # Import to continue
        assert copy["sessionId"] == f"qw-{SESSION}" and copy["messages"] == after["messages"]
        undo = await command(client, "compact.undo", {"sessionId": copy["sessionId"]})  # the user's own: not refused
        assert undo["changed"] is False and undo["kind"] == "nothing_to_undo"
    finally:
        await stop_server(client)


async def test_install_writes_the_projects_qwen_settings(workspace: Workspace, tmp_path: Path) -> None:
    client = await start_server(workspace, workspace.options(qwenCode={"follow": False}))
    try:
        result = await command(client, "compact.installQwenCodeHook", {})
        path = workspace.root / ".qwen" / "settings.json"
        assert result["changed"] is True and result["path"] == str(path)
        assert "request after that one" in result["message"]  # the delay after an automatic compaction, said
        [entry] = json.loads(path.read_text())["hooks"]["SessionStart"]
        assert entry["matcher"] == "compact|resume" and "qwen-code-hook-" in entry["hooks"][0]["command"]
        removed = await command(client, "compact.installQwenCodeHook", {"uninstall": True})
        assert removed["changed"] is True and not path.exists()  # the file the install made goes with it
    finally:
        await stop_server(client)
