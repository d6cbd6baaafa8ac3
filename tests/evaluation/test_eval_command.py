"""``compact-lsp eval`` on a real corpus session: the report, the JSON and the plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_lsp.offline import main

SESSION = "proj_Users-dain-workspace-claude-code-log-sample/12a546d1-83a7-49a6-abba-5400db340b43.jsonl"


def test_eval_writes_report_json_and_plot(corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["eval", str(corpus_dir / SESSION), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "recency (Claude Code / Qwen)" in printed and "## Microcompaction" in printed
    assert (out / "evaluation.md").read_text() == printed
    data = json.loads((out / "evaluation.json").read_text())
    [session] = data["sessions"]
    assert session["messages"] == 72 and session["filesMaterialised"] == 6
    # the agent reads 6 files in this session and goes back to some of them: re-reads are found and scored
    baseline = data["rankers"]["recency (Claude Code / Qwen)"]
    assert baseline["rereads"] > 0
    assert baseline["full_hits"] + baseline["partial_hits"] + baseline["misses"] == baseline["rereads"]
    assert (out / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_project_folder_is_searched_for_sessions(corpus_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "s.jsonl").write_text((corpus_dir / SESSION).read_text())
    (folder / "empty.jsonl").write_text("")
    assert main(["eval", str(tmp_path)]) == 0


@pytest.mark.parametrize(
    "empty_file",
    [pytest.param(False, id="missing-path"), pytest.param(True, id="empty-session")],
)
def test_nothing_to_evaluate_is_an_error(tmp_path: Path, empty_file: bool, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "session.jsonl"
    if empty_file:
        path.write_text("")
    assert main(["eval", str(path)]) == 2
    assert "compact-lsp eval" in capsys.readouterr().err
