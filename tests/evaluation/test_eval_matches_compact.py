"""The evaluation scores what the server really sends: at each point, the files ``eval`` credits to the default
policy are the files ``compact-lsp compact SESSION --turn N --json`` attaches there, path and line range."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, numbered, words

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.file_use_timeline import turns_of
from compact_lsp.evaluation.config import EvalConfig, default_rankers
from compact_lsp.evaluation.replay import replay_session

JSSOUND = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"


def compact_attaches(log: Path, turn: int) -> list[tuple[str, str | None]]:
    """The real CLI, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "compact", str(log), "--turn", str(turn), "--json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return [(r["path"], r.get("lines")) for r in json.loads(done.stdout)["rehydrated"] if r["kind"] == "file"]


def eval_attaches(log: Path) -> dict[int, list[tuple[str, str | None]]]:
    """What ``eval`` credits to the default policy, by assistant turn (the ``--turn`` of the same point)."""
    default = next(spec for spec in default_rankers() if spec.default)
    config = EvalConfig(rankers=(default,), micro=(), survival=False)
    imported = import_claude_code(log)
    result = replay_session(imported, config, TiktokenCounter())
    turns = turns_of(imported.session.messages)
    return {turns[index]: attached for index, attached in result.default_attached.items()}


def outside_the_workspace_session(tmp_path: Path) -> Path:
    """Work in the project, a big file read in two places, and files read and edited in a sibling repository and
    under ~/.claude/plans (outside the workspace: Claude Code asked, the user said yes)."""
    log = SessionLog()
    for step in ("reading", "thinking"):
        log.say(words(3_000, step))  # a long conversation: compacting it is worth it
        log.user("go on")
    log.read("app.py", "import lib\nprint(lib.helper())\n")
    log.read("big.py", numbered(2_000))  # 16k tokens: over the per-file cap, it comes back as slices
    sibling = "def helper():\n    return 1\n"
    for path, text in (("/home/dev/sibling/lib.py", sibling), ("/home/dev/.claude/plans/plan.md", "# Plan\n- a\n")):
        log.call("Read", {"file_path": path}, "     1→" + text.splitlines()[0],
                 {"file": {"filePath": path, "content": text.rstrip("\n"), "startLine": 1,
                           "numLines": text.count("\n"), "totalLines": text.count("\n")}})  # fmt: skip
    lib = {"file_path": "/home/dev/sibling/lib.py", "old_string": "return 1", "new_string": "return 2"}
    log.call("Edit", lib, "The file has been updated.", {"originalFile": sibling})
    log.read("big.py", numbered(2_000), offset=1_500, limit=20)
    for step in ("looking", "planning", "checking", "testing", "reviewing"):
        log.say(words(3_000, step))
        log.user("go on")
    log.say("Done.")
    return log.write(tmp_path)


@pytest.mark.parametrize(
    "source",
    [pytest.param("corpus", id="corpus-session-16-files"), pytest.param("outside", id="files-outside-the-workspace")],
)
def test_eval_credits_exactly_what_compact_attaches(source: str, corpus_dir: Path, tmp_path: Path) -> None:
    log = corpus_dir / JSSOUND if source == "corpus" else outside_the_workspace_session(tmp_path)
    by_turn = eval_attaches(log)
    chosen = [turn for turn in sorted(by_turn) if by_turn[turn]]  # where nothing is attached, nothing to compare
    assert len(chosen) >= 2
    if len(chosen) > 3:  # the first, a middle and the last point: each is a CLI run
        chosen = [chosen[0], chosen[len(chosen) // 2], chosen[-1]]
    for turn in chosen:
        assert compact_attaches(log, turn) == by_turn[turn], f"--turn {turn}"
    if source == "outside":
        attached = {path for files in by_turn.values() for path, _ in files}
        assert {"/home/dev/sibling/lib.py", "/home/dev/.claude/plans/plan.md"} <= attached
        assert any(lines for files in by_turn.values() for _, lines in files), "no slice of big.py compared"


def test_before_claude_codes_compaction_eval_credits_what_compact_attached_then(tmp_path: Path) -> None:
    """A context before Claude Code's compaction is scored as ``compact`` answered while the log stood there."""
    from tests.evaluation.test_eval_command import claude_code_compacted_session

    from compact_lsp.engine.claude_code.transcript_log import import_contexts

    log, before = claude_code_compacted_session(tmp_path)
    first = import_contexts(log)[0]
    default = next(spec for spec in default_rankers() if spec.default)
    result = replay_session(first, EvalConfig(rankers=(default,), micro=(), survival=False), TiktokenCounter())
    turns = turns_of(first.session.messages)
    by_turn = {turns[index]: attached for index, attached in result.default_attached.items() if attached}
    then = tmp_path / "then.jsonl"  # the log as it stood just before the compaction
    then.write_text("".join(log.read_text(encoding="utf-8").splitlines(keepends=True)[:before]), encoding="utf-8")
    chosen = sorted(by_turn)
    assert len(chosen) >= 2
    for turn in (chosen[0], chosen[-1]):
        assert compact_attaches(then, turn) == by_turn[turn], f"--turn {turn}"
