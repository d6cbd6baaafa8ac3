"""``compact-lsp compact``: what full compaction leaves, at a turn, once or successively, on real corpus sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.cli.test_cli import SESSION, cli

from compact_lsp.engine.prompts import SUMMARY_PREAMBLE


def compact_json(corpus_dir: Path, *args: str) -> dict:  # type: ignore[type-arg]
    done = cli("compact", str(corpus_dir / SESSION), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_inspect_reports_the_turns_compact_counts(corpus_dir: Path) -> None:
    report = json.loads(cli("inspect", "--json", str(corpus_dir / SESSION)).stdout)
    assert report["assistantTurns"] == 36
    last = compact_json(corpus_dir, "--turn", "36")
    default = compact_json(corpus_dir)  # the default is the end
    assert last["turn"] == default["turn"] == 36
    assert last["tokensAfter"] == default["tokensAfter"]


def test_compact_at_the_end_leaves_the_summary_and_the_rebuilt_files(corpus_dir: Path) -> None:
    result = compact_json(corpus_dir)
    assert set(result) >= {"messages", "rehydrated", "tokensBefore", "tokensAfter"}
    assert result["changed"] and result["tokensAfter"] < result["tokensBefore"]
    first = result["messages"][0]
    text = first["content"] if isinstance(first["content"], str) else first["content"][0]["text"]
    assert text.startswith(SUMMARY_PREAMBLE)
    assert "Please analyze this codebase and create a CLAUDE.md file" in text  # the user's own first request
    # the author's files are not on this machine: rebuilt from the log, named as the author named them
    files = [r["path"] for r in result["rehydrated"] if r["kind"] == "file"]
    assert "CLAUDE.md" in files and "index.html" in files
    dumped = json.dumps(result)
    assert "compact-lsp-compact-" not in dumped  # no temporary path leaks


def test_a_repeated_turn_compacts_the_compacted_conversation_again(corpus_dir: Path) -> None:
    result = compact_json(corpus_dir, "--turn", "12", "--turn", "24", "--turn", "36")
    steps = result["compactions"]
    assert [s["turn"] for s in steps] == [12, 24, 36] and all(s["changed"] for s in steps)
    # each compaction starts from the previous one's result plus what followed, not from the whole log
    log = compact_json(corpus_dir, "--turn", "36")
    assert steps[2]["tokensBefore"] < log["tokensBefore"]
    text = json.dumps(result["messages"])
    assert text.count("1. Primary Request and Intent:") == 1  # merged with the earlier summaries, not nested
    assert "The user's first request: Please analyze this codebase and create a CLAUDE.md file" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("--turn", "37"), "the session has 36 assistant turns", id="beyond-the-end"),
        pytest.param(("--turn", "20", "--turn", "10"), "must be later than the one before", id="out-of-order"),
        pytest.param(("--turn", "0"), "the session has 36 assistant turns", id="zero"),
    ],
)
def test_a_bad_turn_says_why(corpus_dir: Path, args: tuple[str, ...], message: str) -> None:
    done = cli("compact", str(corpus_dir / SESSION), *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def test_the_report_names_each_compaction_and_shows_the_summary(corpus_dir: Path) -> None:
    done = cli("compact", str(corpus_dir / SESSION), "--turn", "12", "--turn", "36")
    assert done.returncode == 0, done.stderr
    assert "turn 12: " in done.stdout and "turn 36: " in done.stdout and "re-attached" in done.stdout
    assert "1. Primary Request and Intent:" in done.stdout


def test_workspace_names_where_the_sessions_folder_is_now(corpus_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("# CLAUDE.md\nTHE-COPY-ON-THIS-MACHINE\n")
    result = compact_json(corpus_dir, "--workspace", str(tmp_path))
    text = json.dumps(result["messages"])
    assert "THE-COPY-ON-THIS-MACHINE" in text  # re-attached from the folder given, not rebuilt from the log
    files = {r["path"]: r for r in result["rehydrated"] if r["kind"] in ("file", "file-deleted")}
    assert "CLAUDE.md" in files
