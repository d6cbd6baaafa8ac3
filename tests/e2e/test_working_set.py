"""compact/workingSet through the real server: our session's ledger as rows with links, the same text its next
compaction gives the model; a followed Codex session's from its rollout (apply_patch, exec_command). Read-only."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from tests.agents.codex.rollouts import assistant, head, item, tokens, user
from tests.support.messages_api_stub import MessagesApiStub, api_error

from compact_lsp.lsp.features.working_set import WORKING_SET

from .conftest import GUARD, Workspace, start_server, stop_server
from .conversation import all_text, append, command, new_session, request
from .test_commands import long_conversation


def numbered(text: str) -> str:
    return "".join(f"{n:6}→{line}\n" for n, line in enumerate(text.splitlines(), start=1))


def call(use_id: str, name: str, result: str, *, is_error: bool = False, **tool_input: Any) -> list[dict[str, Any]]:
    answer: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": result}
    if is_error:
        answer["is_error"] = True
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": name, "input": tool_input}]},
        {"role": "user", "content": [answer]},
    ]


def records(directory: Path) -> list[Any]:
    """Every journal record but the watcher's pending change notices (notes.md changing may land at any time)."""
    lines = [line for p in sorted(directory.rglob("*.jsonl")) for line in p.read_text().splitlines() if line]
    return [r for r in map(json.loads, lines) if not (isinstance(r, dict) and r.get("type") == "pending")]


async def test_our_sessions_working_set_is_what_its_next_compaction_gives_the_model(
    workspace: Workspace, messages_api: MessagesApiStub
) -> None:
    messages_api.default = api_error(529, "overloaded_error", "Overloaded", headers={"x-should-retry": "false"})
    app = workspace.write("src/app.py", "a = 1\nb = 2\n")
    notes = workspace.write("notes.md", "# notes\n")
    conversation = [
        *long_conversation(rounds=3),  # enough for a compaction to have something to summarise
        *call("r1", "Read", numbered("a = 1\nb = 2\n"), file_path=str(app)),
        *call("e1", "Edit", "The file was updated.", file_path=str(app), old_string="b = 2", new_string="b = 3\nc = 4"),
        *call("r2", "Read", numbered("# notes\n"), file_path=str(notes)),
        *call(
            "b1",
            "Bash",
            "Exit code 1\nFAILED tests/test_app.py::test_b - assert 3 == 2\n1 failed",
            is_error=True,
            command="uv run pytest -q",
        ),
        {"role": "assistant", "content": "test_b still fails."},
    ]
    app.write_text("a = 1\nb = 3\nc = 4\n")  # the edit, as the tool made it
    options = workspace.options(baseUrl=messages_api.base_url)
    lsp = await start_server(workspace, options)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, conversation)
        notes.write_text("# notes\nsomeone else's line\n")  # changed on disk since the agent read it
        journals = records(Path(options["sessionDir"]))
        shown = await request(lsp, WORKING_SET, {"sessionId": session_id})
        current = await request(lsp, WORKING_SET, {})  # the current session when none is named
        unchanged = records(Path(options["sessionDir"]))
        compacted = await command(lsp, "compact.compact", {"sessionId": session_id})
        after = await request(lsp, "compact/messages", {"sessionId": session_id})
    finally:
        await stop_server(lsp)
    assert journals and unchanged == journals  # read, never written
    assert current == shown
    rows = shown["rows"]
    assert [r["kind"] for r in rows] == ["command", "command", "edited", "stale"], rows
    test, build, edited, stale = rows
    assert build["label"] == "Last build/check" and build["commandKind"] == "build"
    assert (test["label"], test["command"], test["exitCode"], test["ok"], test["commandKind"]) == (
        "Last test", "uv run pytest -q", 1, False, "test")  # fmt: skip
    assert test["decisive"] == "FAILED tests/test_app.py::test_b - assert 3 == 2"
    assert (edited["path"], edited["added"], edited["removed"], edited["change"]) == ("src/app.py", 2, 1, "edited")
    assert edited["uri"] == app.resolve().as_uri() and edited["outside"] is False
    assert (stale["path"], stale["size"], stale["outside"]) == ("notes.md", len(notes.read_bytes()), True)
    assert shown["text"].startswith("<working-set>") and shown["characters"] == len(shown["text"])
    assert all(r["line"] in shown["text"] for r in rows)
    assert compacted.get("tokensAfter"), compacted
    assert shown["text"] in all_text(after["messages"]), "the model gets another ledger than the one shown"


def _turns(root: Path) -> list[bytes]:
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-b = 2\n+b = 3\n*** End Patch\n"
    return [
        *head(root),
        user("fix app.py and run the tests"),
        item(type="function_call", call_id="c1", name="exec_command", arguments=json.dumps({"cmd": "cat app.py"})),
        item(type="function_call_output", call_id="c1", output="Process exited with code 0\nOutput:\na = 1\nb = 2\n"),
        item(type="custom_tool_call", call_id="p1", name="apply_patch", input=patch),
        item(
            type="custom_tool_call_output",
            call_id="p1",
            output="Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM app.py\n",
        ),
        item(type="function_call", call_id="c2", name="exec_command", arguments=json.dumps({"cmd": "pytest -q"})),
        item(
            type="function_call_output",
            call_id="c2",
            output="Process exited with code 1\nOutput:\nFAILED test_app.py::test_b\n1 failed in 0.01s\n",
        ),
        assistant("test_b fails."),
        tokens(1200),
        user("go on"),
        assistant("Looking."),
    ]


async def test_a_followed_codex_sessions_working_set_reads_its_patches_and_commands(
    workspace: Workspace, tmp_path: Path
) -> None:
    thread = "0b5e2c1a-1111-4222-8333-944455556677"
    day = tmp_path / "codex-home" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    root = Path(os.path.realpath(workspace.root))
    (root / "app.py").write_text("a = 1\nb = 3\n")
    rollout = day / f"rollout-2026-12-01T00-00-00-{thread}.jsonl"
    rollout.write_bytes(b"".join(_turns(root)))
    before = rollout.read_bytes()
    client = await start_server(workspace, workspace.options(codex={"home": str(tmp_path / "codex-home")}))
    try:
        for _ in range(int(GUARD / 0.1)):  # listed once its first read ends
            if f"codex-{thread}" in {s["sessionId"] for s in await request(client, "compact/sessions", {})}:
                break
            await asyncio.sleep(0.1)
        shown = await request(client, WORKING_SET, {"sessionId": f"codex-{thread}"})
    finally:
        await stop_server(client)
    assert rollout.read_bytes() == before
    by_kind = {r["kind"]: r for r in shown["rows"]}
    assert by_kind["command"]["line"] == "Last test: `pytest -q` — exit 1: FAILED test_app.py::test_b"
    edited = by_kind["edited"]
    assert (edited["path"], edited["added"], edited["removed"]) == ("app.py", 1, 1)
    assert edited["uri"] == (root / "app.py").as_uri()
    assert shown["cwd"] == str(root) and "- app.py: +1 −1" in shown["text"]


async def test_an_imported_codex_rollouts_working_set_reads_its_patches(workspace: Workspace, tmp_path: Path) -> None:
    root = Path(os.path.realpath(workspace.root))
    (root / "app.py").write_text("a = 1\nb = 3\n")
    rollout = tmp_path / "rollout-2026-12-01T00-00-00-0b5e2c1a-1111-4222-8333-944455556688.jsonl"
    rollout.write_bytes(b"".join(_turns(root)))
    client = await start_server(workspace, workspace.options())
    try:
        imported = await request(client, "compact/importSession", {"path": str(rollout)})
        shown = await request(client, WORKING_SET, {"sessionId": imported["sessionId"]})
    finally:
        await stop_server(client)
    assert imported["sessionId"].startswith("cx-")
    assert "- app.py: +1 −1" in shown["text"]  # the patch's hunk, not "edited (1 change)"
    assert "Last test: `pytest -q` — exit 1: FAILED test_app.py::test_b" in shown["text"]
