"""Fact survival through repeated compactions: the probe sees a lost fact, and real sessions keep theirs."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, numbered

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


@pytest.mark.slow
def test_needs_after_the_second_and_third_compaction_are_scored_apart(tmp_path: Path) -> None:
    """Twelve turns compacted at 3, 6 and 9: after the 1st the agent re-reads the head of a big file (attached:
    a hit), after the 2nd it reads far into it (not attached, but its outline points there: a located miss),
    after the 3rd it edits a small file (attached whole: a hit)."""
    big, small = numbered(2_000), "alpha = 1\nbeta = 2\n"
    log = SessionLog()
    log.read("big.py", big)  # whole: ~16k tokens, over the 8k per file: it comes back as its head
    log.read("small.py", small)
    log.read("one.txt", "one\n")
    log.read("big.py", big, offset=1, limit=40)
    log.read("two.txt", "two\n")
    log.read("three.txt", "three\n")
    log.read("big.py", big, offset=1510, limit=30)
    log.read("four.txt", "four\n")
    log.read("five.txt", "five\n")
    log.edit("small.py", small, "beta = 2", "beta = 3")
    log.read("six.txt", "six\n")
    log.read("seven.txt", "seven\n")
    log.say("Done.")
    result = survival(import_claude_code(log.write(tmp_path)), TiktokenCounter())
    assert result is not None and result.turns == [3, 6, 9] and all(result.compacted)
    first, second, third = result.needs
    assert first is not None and second is not None and third is not None
    assert (first.needed, first.strict_misses) == (2, 0)  # big.py's head, then small.py's edit
    assert (second.needed, second.strict_misses, second.located_misses) == (2, 1, 1)
    assert (third.needed, third.strict_misses) == (1, 0)
    assert second.outline_tokens > 0
    totals = survival_json([result])["totals"]
    assert [(t["needed"], t["strictMisses"], t["locatedMisses"]) for t in totals] == [(2, 0, 0), (2, 1, 1), (1, 0, 0)]
    assert "### Needs after repeated compactions" in "\n".join(survival_lines([result]))
