"""``compact-lsp eval`` on real corpus sessions: the report, the JSON and the plot; orphan sub-agent logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog

from compact_lsp.offline import main

SESSION = "proj_Users-dain-workspace-claude-code-log-sample/12a546d1-83a7-49a6-abba-5400db340b43.jsonl"
RANKER_KEYS = {"name", "default", "points", "needed", "neededMisses", "neededMissRate", "strictMisses",
               "strictMissRate", "outsideNeeds", "meanTokens"}  # fmt: skip


def test_eval_writes_report_json_and_plot(corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["eval", str(corpus_dir / SESSION), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "## Rehydration: needed files, strict" in printed and "## Cost with prompt caching" in printed
    assert "Claude Code: 5 most recent files" in printed
    assert (out / "evaluation.md").read_text() == printed
    data = json.loads((out / "evaluation.json").read_text())
    [session] = data["sessions"]
    assert session["messages"] == 72 and session["filesMaterialised"] == 6
    baseline = data["rankers"][0]
    assert baseline["needed"] > 0
    assert baseline["neededMisses"] <= baseline["strictMisses"] <= baseline["needed"]
    assert (out / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_json_lists_each_policy_with_its_figures(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(corpus_dir / SESSION), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rankers = data["rankers"]
    assert all(set(r) >= RANKER_KEYS for r in rankers)
    assert [r["default"] for r in rankers].count(True) == 1
    for r in rankers:
        assert r["strictMissRate"] == pytest.approx(r["strictMisses"] / r["needed"])
        assert 0 <= r["neededMissRate"] <= r["strictMissRate"] <= 1
    assert {m["name"] for m in data["micro"]} >= {"none", "Claude Code idle rule (60 min, keep 5)"}


def test_orphan_sub_agent_logs_are_replayed_alone_or_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    alone = SessionLog(session_id="parent-that-is-gone")
    alone.read("a.py", "x = 1\n")
    alone.read("b.py", "y = 2\n")
    alone.say("Done.")
    alone.write(folder, "agent-0001.jsonl")
    short = SessionLog(session_id="another-gone-parent")
    short.say("Nothing to do.")
    short.write(folder, "agent-0002.jsonl")
    assert main(["eval", str(folder), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [session] = data["sessions"]
    assert session["path"].endswith("agent-0001.jsonl")
    assert "parent-that-is-gone is not in the folder" in session["orphan"]
    assert data["corpus"]["orphans"] == 1
    [skipped] = data["skipped"]
    assert skipped.startswith("agent-0002.jsonl: its parent session another-gone-parent is not in the folder")


def test_a_sub_agent_beside_its_parent_is_not_an_orphan(corpus_dir: Path, tmp_path: Path) -> None:
    project = corpus_dir / "proj_Users-dain-workspace-JSSoundRecorder"
    folder = tmp_path / "proj"
    shutil.copytree(project, folder)
    from compact_lsp.evaluation.sources import session_sources

    sources = session_sources([str(folder)])
    assert [s.path.name for s in sources if s.orphan] == []
    assert not any(s.path.name.startswith("agent-") for s in sources)


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
