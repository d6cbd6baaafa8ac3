"""Each agent reads its own logs for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the registered
agents tell their logs apart by their own marks alone, and a log none of them marks is Claude Code's."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_lsp.agents import registered
from compact_lsp.agents.claude_code import log as claude_code_log
from compact_lsp.agents.claude_code.chat import claude_code_chat_entries
from compact_lsp.agents.codex import log as codex_log
from compact_lsp.agents.codex.chat import codex_chat_entries
from compact_lsp.agents.gemini_cli import log as gemini_cli_log
from compact_lsp.agents.gemini_cli.chat import gemini_cli_chat_entries
from compact_lsp.agents.qwen_code import log as qwen_code_log
from compact_lsp.agents.qwen_code.chat import qwen_code_chat_entries

FIXTURES = Path(__file__).parents[1] / "fixtures"
OWNERS = {"claude_code": "claude-code", "claude_code_legacy": "claude-code", "codex": "codex",
          "qwen_code": "qwen-code", "gemini_cli": "gemini-cli"}  # fmt: skip
LOGS = sorted(p for folder in OWNERS for p in (FIXTURES / folder).glob("*.jsonl"))
READERS = {"claude-code": claude_code_log, "codex": codex_log, "qwen-code": qwen_code_log,
           "gemini-cli": gemini_cli_log}  # fmt: skip


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_log_is_read_by_its_own_agent_alone(path: Path) -> None:
    owner = OWNERS[path.parent.name]
    assert registered.log_owner(str(path)).name == owner
    assert [name for name, reader in READERS.items() if reader.recognises(str(path))] == (
        [] if owner == registered.UNMARKED_LOGS.name else [owner]
    )
    log = READERS[owner].read_log(str(path))
    assert log.messages and log.session_id
    assert {"assistantTurns", "problems", "repairs"} <= log.facts.keys()  # what the report prints


def test_a_file_no_agent_marks_is_read_as_claude_codes_and_says_what_it_could_not_read(tmp_path: Path) -> None:
    junk = tmp_path / "notes.jsonl"
    junk.write_text("not json\n{}\n")
    assert registered.log_owner(str(junk)) is registered.UNMARKED_LOGS
    log = registered.UNMARKED_LOGS.read_log(str(junk))
    assert log.messages == [] and log.problems


CHATS = {"claude-code": claude_code_chat_entries, "codex": codex_chat_entries, "qwen-code": qwen_code_chat_entries,
         "gemini-cli": gemini_cli_chat_entries}  # fmt: skip


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_import_records_the_last_compaction_as_the_followed_chat_shows_it(path: Path) -> None:
    """What an import keeps of the agent's last compaction (the copy's marker shows it) is what the followed chat's
    last marker shows: the same trigger and figures, none made up; a log that never compacted records none."""
    owner = OWNERS[path.parent.name]
    recorded = READERS[owner].read_log(str(path)).last_compaction
    markers = [e for e in CHATS[owner](path) if e["kind"] == "compaction"]
    if path.parent.name == "claude_code_legacy":  # a 1.0.x summary without a boundary: no figures were recorded
        assert recorded is None
        return
    if not markers:
        assert recorded is None
        return
    assert recorded is not None
    last = markers[-1]
    assert recorded.to_record() == {k: last[k] for k in ("trigger", "tokensBefore", "tokensAfter")}


def test_the_real_qwen_and_gemini_logs_record_their_figures() -> None:
    """Qwen's ``chat_compression`` figures and Gemini's derived ones, from the real CLIs' logs."""
    qwen = qwen_code_log.read_log(str(FIXTURES / "qwen_code" / "automatic-compaction.jsonl")).last_compaction
    gemini = gemini_cli_log.read_log(str(FIXTURES / "gemini_cli" / "compressed-session.jsonl")).last_compaction
    assert qwen is not None and qwen.trigger == "auto" and qwen.tokens_before and qwen.tokens_after
    assert gemini is not None and gemini.trigger in ("auto", "manual") and gemini.tokens_before is not None
