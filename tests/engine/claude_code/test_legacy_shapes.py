"""Claude Code 1.0.x transcripts replayed whole: sub-agents inline in the log, compactions without a boundary.

The fixtures (tests/fixtures/claude_code_legacy/) are small logs in 1.0.x's shape: ``inline_subagent.jsonl`` has a
``Task`` sub-agent's records (``isSidechain: true``, its chain starting with no parent) in the session's own file;
``legacy_compaction.jsonl`` has a compaction whose summary is a user record with no parent and no
``compact_boundary`` before it. Before these were read, the sub-agent's four records were dropped as another
branch, and the six messages before the compaction were lost.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog

from compact_lsp.cli.offline import main
from compact_lsp.engine.claude_code.legacy_shapes import LEGACY_TRIGGER, with_legacy_boundaries
from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import import_claude_code, import_contexts
from compact_lsp.engine.conversation.messages import tool_uses

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_code_legacy"
INLINE = FIXTURES / "inline_subagent.jsonl"
COMPACTED = FIXTURES / "legacy_compaction.jsonl"


def test_an_inline_sub_agent_is_a_conversation_of_its_own() -> None:
    imported = import_claude_code(INLINE)
    assert "other-branch" not in imported.skipped_records  # was: 4 records dropped
    assert [m["role"] for m in imported.session.messages] == ["user", "assistant"] * 3
    assert [u["name"] for m in imported.session.messages for u in tool_uses(m)] == ["Task", "Read"]
    (sub,) = imported.subagents
    assert sub.inline and sub.session.id == imported.session.id
    assert [m["role"] for m in sub.session.messages] == ["user", "assistant", "user", "assistant"]
    assert [u["input"]["file_path"] for m in sub.session.messages for u in tool_uses(m)] == [
        "/Users/dev/proj/config.py"
    ]
    assert any(side.get("file", {}).get("startLine") == 1 for side in sub.tool_results_side.values())


def test_a_compaction_without_a_boundary_splits_the_contexts() -> None:
    contexts = import_contexts(COMPACTED)
    assert len(contexts) == 2  # was: 1, the six messages before the summary lost
    before, after = contexts
    assert [m["role"] for m in before.session.messages] == ["user", "assistant"] * 3
    assert str(after.session.messages[0]["content"][0]["text"]).startswith("This session is being continued")
    assert len(after.history) == 6 and after.compaction == {"trigger": LEGACY_TRIGGER}
    assert after.legacy_compactions == 1 and "other-branch" not in after.skipped_records
    assert import_claude_code(COMPACTED).legacy_compactions == 1


def test_todays_logs_are_read_as_before(tmp_path: Path) -> None:
    log = SessionLog()
    log.read("a.py", "x = 1\n")
    log.compact("This session is being continued from a previous conversation that ran out of context.")
    log.say("Done.")
    records, _ = parse_log_lines(log.write(tmp_path).read_bytes())
    assert with_legacy_boundaries(records) == (records, 0)  # its summary hangs off a real boundary
    assert len(import_contexts(tmp_path / "session.jsonl")) == 2


@pytest.mark.parametrize(("log", "inline", "legacy"), [(INLINE, 1, 0), (COMPACTED, 0, 1)], ids=["inline", "legacy"])
def test_inspect_counts_the_older_shapes(
    log: Path, inline: int, legacy: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(log), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["inlineSubagents"], report["legacyCompactions"]) == (inline, legacy)


def test_eval_replays_the_inline_sub_agent_and_both_contexts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    for log in (INLINE, COMPACTED):
        (folder / log.name).write_bytes(log.read_bytes())
    assert main(["eval", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    corpus = data["corpus"]
    assert (corpus["sessions"], corpus["inlineSubagents"], corpus["legacyCompactions"]) == (2, 1, 1)
    replayed = {(Path(s["path"]).name, s["context"], s["inline"]) for s in data["sessions"]}
    assert replayed == {
        ("inline_subagent.jsonl", None, False),
        ("inline_subagent.jsonl", None, True),
        ("legacy_compaction.jsonl", "1 of 2", False),
        ("legacy_compaction.jsonl", "2 of 2", False),
    }
    assert [row["compaction"] for row in data["byContext"]] == [1, 2]


def test_a_sub_agents_own_log_stays_whole(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in INLINE.read_text().splitlines()]
    own = [r for r in lines if r["isSidechain"]]  # as a later version writes it to agent-<id>.jsonl
    path = tmp_path / "agent-1234.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in own))
    imported = import_claude_code(path)
    assert [m["role"] for m in imported.session.messages] == ["user", "assistant", "user", "assistant"]
    assert imported.subagents == []
