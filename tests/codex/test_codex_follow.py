"""Codex sessions followed read-only by the real server: rollouts the real Codex CLI wrote in the workspace are
listed (source codex, read-only, the user's request as title, Codex's reported usage), live as Codex writes a
new one, refuse changes in words naming Codex, and can be imported to continue."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient
from tests.codex.codex_cli import needs_codex, run_codex, write_config
from tests.codex.responses_stub import ResponsesStub, exec_command, message
from tests.e2e.conftest import GUARD, Workspace, start_server, stop_server
from tests.e2e.conversation import append, command, request, start

pytestmark = needs_codex


def one_tool_turn(request_body: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    last = request_body["input"][-1]
    if last.get("type") == "function_call_output":
        return [message("The file says hello.")], 5_000
    return [exec_command("call_1", "cat hello.txt")], 4_000


async def codex_sessions(client: LanguageClient, want: int) -> list[dict[str, Any]]:
    """The listed Codex sessions, polled until there are ``want`` (or the guard runs out)."""
    found: list[dict[str, Any]] = []
    for _ in range(int(GUARD / 0.2)):
        listed = await request(client, "compact/sessions", {})
        found = [s for s in listed if s["source"] == "codex"]
        if len(found) >= want:
            break
        await asyncio.sleep(0.2)
    return found


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True)
    return home


async def test_codex_sessions_of_the_workspace_are_followed_read_only(
    workspace: Workspace, codex_home: Path, tmp_path: Path
) -> None:
    stub = ResponsesStub(one_tool_turn).start()
    client: LanguageClient | None = None
    try:
        write_config(codex_home, stub)
        workspace.write("hello.txt", "hello\n")
        other = tmp_path / "other-project"
        other.mkdir()
        assert run_codex(codex_home, workspace.root, "what does hello.txt say").returncode == 0
        assert run_codex(codex_home, other, "not this one").returncode == 0

        client = await start_server(workspace, workspace.options(codex={"home": str(codex_home)}))
        [listed] = await codex_sessions(client, 1)
        assert listed["readOnly"] is True and listed["title"] == "what does hello.txt say"
        assert listed["current"] is False  # never current by itself
        status = await command(client, "compact.status", {"sessionId": listed["sessionId"]})
        assert status["usage"]["reported"] == 5_000  # what Codex last sent, as the stub reported it
        assert status["usage"]["total"] > 0

        with pytest.raises(Exception, match="Codex owns its context") as refused:
            await append(client, listed["sessionId"], start("hello from the editor"))
        assert "OwnedBy" not in str(refused.value)

        # a new Codex session while the editor is open joins the list
        assert run_codex(codex_home, workspace.root, "a second question").returncode == 0
        titles = {s["title"] for s in await codex_sessions(client, 2)}
        assert titles == {"what does hello.txt say", "a second question"}

        # the followed session as Codex's user saw it: the request, the command row, the answer; no plumbing
        shown = await request(client, "compact/transcript", {"sessionId": listed["sessionId"]})
        text = json.dumps(shown["entries"])
        assert "environment_context" not in text and "skills_instructions" not in text and "Chunk ID" not in text
        calls = [b for e in shown["entries"] for b in e["message"]["content"] if b["type"] == "tool_use"]
        assert [c["input"] for c in calls] == [{"command": "cat hello.txt"}]
        users = [b["text"] for e in shown["entries"] if e["message"]["role"] == "user"
                 for b in e["message"]["content"] if b["type"] == "text"]  # fmt: skip
        assert users == ["what does hello.txt say"]

        imported = await request(client, "compact/importSession", {"sessionId": listed["sessionId"]})
        assert imported["sessionId"] == "cx-" + listed["sessionId"].removeprefix("codex-")  # its own id
        transcript = await request(client, "compact/transcript", {"sessionId": imported["sessionId"]})
        texts = str(transcript["entries"])
        assert "what does hello.txt say" in texts and "The file says hello." in texts
        copy = await command(client, "compact.status", {"sessionId": imported["sessionId"]})
        assert [r["path"] for r in copy["readFiles"]] == ["hello.txt"]  # Codex's ``cat hello.txt``, a read of it
        await append(client, imported["sessionId"], start("and now from the editor"))  # writable at once

        # one row each, also after a reload: the followed session (Codex's) and the user's copy (writable)
        for _ in range(2):
            listed_now = await request(client, "compact/sessions", {})
            rows = [s for s in listed_now if s["sessionId"] in (listed["sessionId"], imported["sessionId"])]
            assert sorted((s["sessionId"], s["readOnly"]) for s in rows) == sorted(
                [(listed["sessionId"], True), (imported["sessionId"], False)]
            ), rows
            await stop_server(client)
            client = await start_server(workspace, workspace.options(codex={"home": str(codex_home)}))
            await codex_sessions(client, 2)
    finally:
        if client is not None:
            await stop_server(client)
        stub.stop()
