"""compact/importSession: a real Claude Code log becomes a session the editor can manage."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from .conftest import Workspace
from .conversation import command, request

SESSION = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"


async def test_import_a_real_session_then_manage_it(client: LanguageClient, corpus_dir: Path) -> None:
    result = await request(client, "compact/importSession", {"path": str(corpus_dir / SESSION)})
    assert result["sessionId"] == "cc-7acd37a8-2745-4b58-a8a9-46164b22ad9e"
    assert result["messages"] == 72 and result["problems"] == []
    listed = await request(client, "compact/sessions", {})
    assert result["sessionId"] in [s["sessionId"] for s in listed]
    # the imported session is now the active one: a command without a sessionId acts on it
    cleared = await command(client, "compact.microcompact", {})
    assert len(cleared["cleared"]) > 10
    with pytest.raises(Exception, match="already imported"):
        await request(client, "compact/importSession", {"path": str(corpus_dir / SESSION)})


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        pytest.param("missing.jsonl", None, "is not a file", id="missing"),
        pytest.param("binary.jsonl", b"\x00\x01\x02" * 100, "binary|not a Claude Code", id="binary"),
    ],
)
async def test_import_bad_input(
    client: LanguageClient, workspace: Workspace, name: str, content: bytes | None, message: str
) -> None:
    path = workspace.root / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(Exception, match=message):
        await request(client, "compact/importSession", {"path": str(path)})
    assert await request(client, "compact/sessions", {}) == []


async def test_a_log_with_bad_lines_imports_the_rest(
    client: LanguageClient, workspace: Workspace, corpus_dir: Path
) -> None:
    lines = (corpus_dir / SESSION).read_text().splitlines()
    damaged = workspace.root / "damaged.jsonl"
    damaged.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    result = await request(client, "compact/importSession", {"path": str(damaged)})
    assert result["messages"] == 72
    assert len(result["problems"]) == 1 and "line 2" in result["problems"][0]


async def test_a_claude_code_copys_marker_has_its_last_compactions_figures(client: LanguageClient) -> None:
    """A Claude Code transcript with two compactions (a manual one, then an automatic one whose boundary recorded
    990,694 → 4,099 tokens), imported: the copy's chat shows the agent's marker with the last one's trigger and
    figures, as the followed chat shows them."""
    transcript = Path(__file__).resolve().parents[1] / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
    imported = await request(client, "compact/importSession", {"path": str(transcript)})
    chat = await request(client, "compact/transcript", {"sessionId": imported["sessionId"]})
    [marker] = [e for e in chat["entries"] if e["kind"] == "compaction"]
    assert marker["summarizer"] == "agent" and marker["summary"]
    assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("auto", 990_694, 4_099)
