"""The offline commands a user runs by hand: inspect and import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SESSION = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compact_lsp", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_inspect_reports_usage_and_what_would_be_cleared(corpus_dir: Path) -> None:
    done = cli("inspect", str(corpus_dir / SESSION))
    assert done.returncode == 0, done.stderr
    assert "messages: 72" in done.stdout
    assert "microcompaction (forced): would clear" in done.stdout
    assert "JSSoundRecorder/index.html" in done.stdout  # the biggest cleared read is named


def test_inspect_json_is_consistent(corpus_dir: Path) -> None:
    done = cli("inspect", "--json", "--keep-recent", "3", str(corpus_dir / SESSION))
    report = json.loads(done.stdout)
    micro = report["microcompaction"]
    assert len(micro["keptRecent"]) == 3
    assert micro["tokensBefore"] == report["usage"]["total"]
    assert micro["tokensBefore"] - micro["tokensAfter"] == micro["tokensSaved"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("inspect", "/nonexistent/session.jsonl"), "no Claude Code session log", id="missing-file"),
        pytest.param(("inspect", "/"), "directory", id="a-directory"),
    ],
)
def test_inspect_bad_input_says_why(args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    assert message.lower() in done.stderr.lower()
    assert done.stdout == ""


def test_import_then_reimport_is_refused(corpus_dir: Path, tmp_path: Path) -> None:
    store = tmp_path / "sessions"
    first = cli("import", str(corpus_dir / SESSION), "--workspace", str(tmp_path), "--session-dir", str(store))
    assert first.returncode == 0, first.stderr
    session_id = first.stdout.split("\t")[0]
    files = list(store.glob(f"*/{session_id}.jsonl"))
    assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600
    size = files[0].stat().st_size
    again = cli("import", str(corpus_dir / SESSION), "--workspace", str(tmp_path), "--session-dir", str(store))
    assert again.returncode == 1 and "already imported" in again.stderr
    assert files[0].stat().st_size == size  # nothing appended twice


def test_version() -> None:
    done = cli("--version")
    assert done.returncode == 0 and done.stdout.startswith("compact-lsp ")


def test_help_lists_every_subcommand() -> None:
    from compact_lsp.agents.registered import AGENTS
    from compact_lsp.cli.main import SUBCOMMANDS

    done = cli("--help")
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("subcommands:", 1)[1]
    names = {line.split()[0] for line in listed.strip().splitlines()}
    assert names == {"serve", *SUBCOMMANDS, *(agent.name for agent in AGENTS)}
    assert "serve" in cli("serve", "--help").stdout  # 'serve' is accepted and takes the server's options
