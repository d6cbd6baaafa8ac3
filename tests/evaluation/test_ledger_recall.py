"""Ledger recall: what the ledger, the offline summary and Claude Code's rule state of the work before a point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_lsp.engine.compaction.ledger import build_ledger
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import file_uses
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.evaluation.ledger_recall import score_ledger


def call(use_id: str, name: str, result: str, *, is_error: bool = False, **tool_input: Any) -> list[Message]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": use_id, "content": result}
    if is_error:
        block["is_error"] = True
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": use_id, "name": name, "input": tool_input}]},
        {"role": "user", "content": [block]},
    ]


def session(root: Path, test_passes: bool) -> list[Message]:
    messages: list[Message] = [{"role": "user", "content": "fix it"}]
    for n in range(8):
        (root / f"m{n}.py").write_text(f"n = {n}\n")
        messages += call(f"w{n}", "Write", "File created successfully", file_path=f"m{n}.py", content=f"n = {n}\n")
    outcome = "===== 3 passed in 0.1s =====" if test_passes else "FAILED test_m.py::test_n - assert 1 == 2"
    messages += call("t1", "Bash", outcome, is_error=not test_passes, command="uv run pytest -q")
    return messages


def score(root: Path, messages: list[Message], max_chars: int = 1_500) -> dict[str, Any]:
    ws = WorkingSet(cwd=str(root))
    ws.observe(messages)
    ledger = build_ledger(ws, read_text=gated_reader(AllowedRoots.of(str(root))), cwd=str(root), max_chars=max_chars)
    summary = OfflineSummarizer().summarize_messages(messages)
    return score_ledger(messages, file_uses(messages, str(root)), str(root), ledger, summary).to_json()


def test_the_ledger_states_a_passing_test_that_the_summary_does_not(tmp_path: Path) -> None:
    figures = score(tmp_path, session(tmp_path, test_passes=True))
    assert figures["editedRecall"] == {"ledger": 1.0, "offlineSummary": 1.0, "claudeCodeRule": 5 / 8}
    assert figures["lastTestStatus"] == {"ledger": 1.0, "offlineSummary": 0.0, "claudeCodeRule": 0.0}
    assert 0 < figures["ledgerCharsMean"] <= 1_500


def test_a_failing_test_is_stated_by_both(tmp_path: Path) -> None:
    figures = score(tmp_path, session(tmp_path, test_passes=False))
    assert figures["lastTestStatus"] == {"ledger": 1.0, "offlineSummary": 1.0, "claudeCodeRule": 0.0}


def test_a_ledger_cut_short_misses_files_and_says_so(tmp_path: Path) -> None:
    figures = score(tmp_path, session(tmp_path, test_passes=True), max_chars=260)
    assert figures["editedRecall"]["ledger"] < 1.0
    assert figures["pointsCut"] == 1
