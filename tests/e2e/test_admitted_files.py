"""Files outside the workspace a Claude Code transcript used: proposed on import in a prompt naming each, admitted
only by the user's yes, listed in status, re-attached by compaction, and revoked with compact/revokeFile (the folder
around them never opens)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient
from tests.evaluation.session_log import SessionLog, words

from .conftest import Workspace
from .conversation import command, request


def sibling_log(workspace: Workspace, lib: Path) -> Path:
    """The agent reads app.py, then lib.py in a sibling repository (Claude Code asked; the user said yes)."""
    log = SessionLog(cwd=str(workspace.root), session_id="5e55-admit")
    for step in ("reading", "thinking"):
        log.say(words(3_000, step))  # long enough that compacting is worth it
        log.user("go on")
    log.read("app.py", "import lib\n")
    text = lib.read_text()
    log.call("Read", {"file_path": str(lib)}, "     1→def helper():",
             {"file": {"filePath": str(lib), "content": text.rstrip("\n"), "startLine": 1, "numLines": 2,
                       "totalLines": 2}})  # fmt: skip
    log.say("Done.")
    return log.write(workspace.root.parent, "sibling-session.jsonl")


async def test_an_imported_transcripts_outside_file_is_admitted_then_revoked(
    client: LanguageClient, workspace: Workspace
) -> None:
    workspace.write("app.py", "import lib\n")
    sibling = workspace.root.parent / "sibling"
    sibling.mkdir()
    lib = sibling / "lib.py"
    lib.write_text("def helper():\n    return 1\n")
    (sibling / "secret.txt").write_text("never read\n")
    prompts: list[str] = []

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def on_prompt(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        prompts.append(params.message)
        return types.MessageActionItem(title="Let these files in")

    imported = await request(client, "compact/importSession", {"path": str(sibling_log(workspace, lib))})
    session_id = imported["sessionId"]
    for _ in range(200):  # the prompt runs beside the import: wait for the admission it makes
        status = await request(client, "compact/status", {"sessionId": session_id})
        if status["admittedFiles"]:
            break
        await asyncio.sleep(0.05)
    assert len(prompts) == 1 and str(lib) in prompts[0] and "secret.txt" not in prompts[0]
    assert status["admittedFiles"] == [{"path": str(lib.resolve()), "reason": "transcript"}]

    compacted = await command(client, "compact.compact", {"sessionId": session_id})
    assert str(lib.resolve()) in [r["path"] for r in compacted["rehydrated"]]
    await command(client, "compact.undo", {"sessionId": session_id})

    left = await request(client, "compact/revokeFile", {"sessionId": session_id, "path": str(lib)})
    assert left == {"admittedFiles": []}
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["admittedFiles"] == []
    compacted = await command(client, "compact.compact", {"sessionId": session_id})
    paths = [r["path"] for r in compacted["rehydrated"]]
    assert "app.py" in paths and str(lib.resolve()) not in paths
