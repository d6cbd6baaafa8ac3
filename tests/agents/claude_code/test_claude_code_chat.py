"""A followed Claude Code session's chat from its whole transcript (agents/claude_code/chat.py): a transcript
Claude Code never compacted is its conversation as it was; one it compacted keeps the branch before each boundary,
the summary only as the marker's."""

from __future__ import annotations

import json
from pathlib import Path

from compact_lsp.agents.claude_code.chat import claude_code_chat_entries

FIXTURE = Path(__file__).parent.parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
"""Recorded from the real Claude Code CLI: seven reads, /compact, two reads, an automatic compaction, the answer."""


def test_a_transcript_without_a_boundary_is_its_messages(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines(keepends=True)
    before = next(i for i, line in enumerate(lines) if '"compact_boundary"' in line)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(lines[:before]))
    entries = claude_code_chat_entries(transcript)
    assert entries and {e["kind"] for e in entries} == {"message"}
    assert entries[-1]["message"]["content"][-1]["text"] == "Read the first seven."


def test_each_boundary_is_a_marker_with_its_figures_and_the_summary_is_not_a_message() -> None:
    entries = claude_code_chat_entries(FIXTURE)
    markers = [(e["trigger"], e["tokensBefore"], e["tokensAfter"]) for e in entries if e["kind"] == "compaction"]
    assert markers == [("manual", 17_890, 7_439), ("auto", 990_694, 4_099)]
    messages = json.dumps([e for e in entries if e["kind"] == "message"])
    assert "This session is being continued" not in messages and "Read the first seven modules" in messages
    assert entries[0]["at"] == "2026-12-06T02:16:49.163Z"  # each message keeps when it was logged


def test_the_users_compact_comes_before_its_marker_as_typed() -> None:
    """Claude Code writes ``/compact``'s line and its "Compacted" after the boundary and its summary; the user typed
    it before: the chat shows it there, and the next prompt after the marker on its own."""
    from compact_lsp.agents.claude_code.shown import SHOWN
    from compact_lsp.agents.shown import shown_entries

    entries = shown_entries(claude_code_chat_entries(FIXTURE), SHOWN)
    at = next(i for i, e in enumerate(entries) if e["kind"] == "compaction")
    [typed, result] = entries[at - 1]["message"]["content"]
    assert typed["name"] == "SlashCommand" and typed["input"] == {"command": "/compact"}
    assert result["content"] == "Compacted"  # not its terminal's key hint (ctrl+o to see full summary)
    assert entries[at + 1]["message"]["content"] == [{"type": "text", "text": "Now read h.py and i.py"}]
    automatic = [i for i, e in enumerate(entries) if e["kind"] == "compaction"][1]
    assert entries[automatic - 1]["message"]["content"][0]["type"] == "tool_result"  # nothing typed moved there
