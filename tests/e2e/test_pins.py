"""Pins end to end: a pinned result survives microcompaction, a pinned file comes back first, pins survive a restart,
and an invalid pin is refused with nothing written."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_lsp import LanguageClient

from .conftest import Workspace, start_server, stop_server
from .conversation import all_text, append, command, new_session, read_round, request, start


def shell_round(use_id: str, output: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": "Bash", "input": {"command": "make"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use_id, "content": output}]},
    ]


def build_log(rounds: int = 8) -> list[dict[str, Any]]:
    messages = start("Build the project and tell me what fails.")
    for i in range(rounds):
        messages += shell_round(f"toolu_sh{i}", f"BUILD-{i}\n" + "\n".join(f"unit {i}.{j} ok" for j in range(200)))
    return messages


async def pin(client: LanguageClient, method: str, **params: Any) -> list[dict[str, Any]]:
    result = await request(client, method, params)
    pinned: list[dict[str, Any]] = result["pinned"]
    return pinned


async def test_a_pinned_result_is_never_microcompacted_and_pins_survive_a_restart(workspace: Workspace) -> None:
    notes = workspace.write("NOTES.md", "# notes\n")
    lsp = await start_server(workspace)
    try:
        session_id = await new_session(lsp)
        await append(lsp, session_id, build_log())
        pinned = await pin(lsp, "compact/pin", sessionId=session_id, toolUseId="toolu_sh0")
        assert pinned == [{"kind": "toolResult", "toolUseId": "toolu_sh0", "inHistory": True, "tool": "Bash"}]
        pinned = await pin(lsp, "compact/pin", sessionId=session_id, path=str(notes))
        assert pinned[-1] == {"kind": "file", "path": "NOTES.md"}

        result = await command(lsp, "compact.microcompact", {"sessionId": session_id})
        cleared = {c["toolUseId"] for c in result["cleared"]}
        assert "toolu_sh0" not in cleared and "toolu_sh1" in cleared
        assert [p["toolUseId"] for p in result["protected"]] == ["toolu_sh0"]
        view = await request(lsp, "compact/messages", {"sessionId": session_id})
        assert "BUILD-0" in all_text(view["messages"]) and "BUILD-1" not in all_text(view["messages"])
    finally:
        await stop_server(lsp)

    lsp = await start_server(workspace)  # a fresh server replays the journal: the pins are still there
    try:
        status = await request(lsp, "compact/status", {"sessionId": session_id})
        assert [p.get("toolUseId") or p["path"] for p in status["pinned"]] == ["toolu_sh0", "NOTES.md"]
        pinned = await pin(lsp, "compact/unpin", sessionId=session_id, toolUseId="toolu_sh0", path="NOTES.md")
        assert pinned == []
        result = await command(lsp, "compact.microcompact", {"sessionId": session_id})
        assert "toolu_sh0" in {c["toolUseId"] for c in result["cleared"]}
    finally:
        await stop_server(lsp)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        pytest.param({"toolUseId": "toolu_nope"}, "no tool call 'toolu_nope'", id="unknown-tool-use-id"),
        pytest.param({"path": "../outside.txt"}, "outside the allowed roots", id="outside-the-roots"),
        pytest.param({"path": "missing.py"}, "is not a file", id="missing-file"),
        pytest.param({}, "give 'toolUseId'", id="neither"),
    ],
)
async def test_an_invalid_pin_is_refused_and_nothing_is_written(
    client: LanguageClient, workspace: Workspace, params: dict[str, Any], message: str
) -> None:
    (workspace.root.parent / "outside.txt").write_text("secret\n")
    session_id = await new_session(client)
    await append(client, session_id, build_log(2))
    journal = next(workspace.sessions.rglob(f"{session_id}*.jsonl"))
    size = journal.stat().st_size
    with pytest.raises(Exception, match=message):
        await request(client, "compact/pin", {"sessionId": session_id, **params})
    assert journal.stat().st_size == size
    status = await request(client, "compact/status", {"sessionId": session_id})
    assert status["pinned"] == []


async def test_a_pinned_file_is_rehydrated_first_even_if_never_read(
    client: LanguageClient, workspace: Workspace
) -> None:
    session_id = await new_session(client)
    conversation = start()
    for i in range(3):
        path = workspace.write(f"src/m{i}.py", f"m{i} = {i}\n")
        conversation += read_round(f"toolu_{i}", str(path), path.read_text())
    await append(client, session_id, conversation)
    workspace.write("docs/spec.md", "# the spec\n")
    await pin(client, "compact/pin", sessionId=session_id, path="docs/spec.md")

    preview = await command(client, "compact.rehydrationPreview", {"sessionId": session_id})

    first = preview["candidates"][0]
    assert first["path"] == "docs/spec.md" and first["included"] and first["reason"].startswith("pinned")
    assert [c["path"] for c in preview["candidates"][1:]] == ["src/m2.py", "src/m1.py", "src/m0.py"]
