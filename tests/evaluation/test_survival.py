"""Fact survival through repeated compactions: the probe sees a lost fact, and real sessions keep theirs."""

from __future__ import annotations

from pathlib import Path

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.evaluation.survival import probe_facts, survival, survival_json, survival_lines, view_text

SESSION = "proj_Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"


def test_the_probe_finds_requests_files_plan_steps_and_the_latest_error_and_sees_one_missing() -> None:
    messages = [
        {"role": "user", "content": "Add rate limiting to the API. Do not touch the database layer."},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "p", "name": "TodoWrite", "input": {"todos": [
                {"content": "Write the limiter", "status": "completed"},
                {"content": "Wire it into the router", "status": "pending"}]}},
            {"type": "tool_use", "id": "e", "name": "Edit",
             "input": {"file_path": "/w/api/limit.py", "old_string": "a", "new_string": "b"}},
            {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "pytest"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "p", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "e", "content": "ok"},
            {"type": "tool_result", "tool_use_id": "t", "content": "FAILED t.py::test_burst", "is_error": True},
        ]},
    ]  # fmt: skip
    facts = probe_facts(messages)
    assert [kind for kind, _ in facts] == ["request", "file", "plan", "error", "failure"]
    assert ("plan", "Wire it into the router") in facts and ("file", "/w/api/limit.py") in facts
    assert ("failure", "t.py::test_burst") in facts
    everything = view_text(messages)
    assert all(fact in everything for _, fact in facts)
    without_the_file = everything.replace("/w/api/limit.py", "limit.py")
    assert [f for f in facts if f[1] not in without_the_file] == [("file", "/w/api/limit.py")]


def test_a_real_session_keeps_its_facts_through_three_compactions_without_growing_from_repetition(
    corpus_dir: Path,
) -> None:
    counter = TiktokenCounter()
    result = survival(import_claude_code(corpus_dir / SESSION), counter)
    assert result is not None and result.turns == [9, 18, 27] and all(result.compacted)
    assert result.kept[2] / result.facts[2] >= 0.9, result.lost[2]
    # the third summary is no bigger than one compaction of the same conversation at that turn would write
    assert result.summary_tokens[2] <= result.one_shot_tokens[2] * 1.05
    totals = survival_json([result])["totals"]
    assert [t["compaction"] for t in totals] == [1, 2, 3] and totals[0]["sizeVsFirstMin"] == 1.0
    assert "## Repeated compactions" in survival_lines([result])


def test_the_probe_asks_for_the_users_longer_words_whole_and_what_decides_in_a_failure() -> None:
    constraint = (
        "No. Let's keep the name of the module as it is, because three other services import it by that name; "
        "rename only the class inside it."
    )
    output = "Exit code 1\nsrc/a.py:3:5: SIM115 Use a context manager\nFound 1 error."
    messages = [
        {"role": "user", "content": constraint},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "r", "name": "Bash",
                                           "input": {"command": "ruff check"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r", "is_error": True,
                                      "content": output}]},
    ]  # fmt: skip
    facts = probe_facts(messages)
    assert ("words", " ".join(constraint.split())) in facts
    assert ("failure", "src/a.py:3:5: SIM115 Use a context manager") in facts and ("failure", "SIM115") in facts
    cut = view_text(messages).replace("because three other services", "because")
    assert ("words", " ".join(constraint.split())) not in [f for f in facts if f[1] in cut]
