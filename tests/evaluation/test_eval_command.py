"""``compact-lsp eval`` on real corpus sessions: the report, the JSON and the plot; orphan sub-agent logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, words

from compact_lsp.cli.offline import main

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


def claude_code_compacted_session(tmp_path: Path) -> tuple[Path, int]:
    """Files read and read again, then Claude Code compacts the session, and a little work follows; with the
    number of records before the boundary."""
    log = SessionLog()
    for n in range(12):
        log.read(f"src/m{n % 4}.py", f"value = {n % 4}\n")
        log.say(words(1_500, f"step{n}"))  # a long conversation: compacting it is worth it
        log.user("go on")
    before = log.compact("Summary: the user asked for work on src/m0.py .. src/m3.py.")
    for n in range(3):
        log.say(f"after {n}")
        log.user("go on")
    return log.write(tmp_path), before


def test_a_session_claude_code_compacted_is_replayed_context_by_context(tmp_path: Path) -> None:
    from compact_lsp.evaluation import evaluate
    from compact_lsp.evaluation.config import EvalConfig, default_rankers

    log, _ = claude_code_compacted_session(tmp_path)
    default = next(spec for spec in default_rankers() if spec.default)
    report = evaluate([log], EvalConfig(rankers=(default,), micro=(), survival=False))
    assert [s.context for s in report.sessions] == ["1 of 2", "2 of 2"]
    assert report.corpus()["sessions"] == 1 and report.corpus()["contexts"] == 2
    before, after = (s.rankers[default.name] for s in report.sessions)
    # the re-reads before the compaction are needs; was: only the context after it was replayed, with none
    assert before.needed > 0 and before.strict_misses == 0
    assert after.needed == 0
