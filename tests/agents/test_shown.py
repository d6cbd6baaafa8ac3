"""Agents' sessions as their users saw them (agents/shown.py): real Claude Code transcripts of the corpus and
Codex rollouts in the shapes Codex 0.171.0 writes (tests/codex/ records them from the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agents.claude_code.transcripts import corpus_session

from compact_lsp.agents import registered
from compact_lsp.agents.claude_code.shown import CAVEAT
from compact_lsp.agents.claude_code.shown import SHOWN as CLAUDE_CODE
from compact_lsp.agents.claude_code.shown import classify as claude_code_block
from compact_lsp.agents.codex.hook import HEADER
from compact_lsp.agents.codex.shown import HANDOFF as CODEX_HANDOFF
from compact_lsp.agents.codex.shown import SHOWN as CODEX
from compact_lsp.agents.codex.shown import classify as codex_block
from compact_lsp.agents.shown import shown_entries
from compact_lsp.agents.shown_blocks import Command, CommandOutput, Dropped, Handoff
from compact_lsp.engine.claude_code.transcript_log import import_claude_code

WITH_SHELL = "937c6e6b-27e7-4edd-86f1-ad28f9731841"
"""A corpus session whose user ran ``!uv run ty check`` and slash commands in Claude Code's terminal."""


def entries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"kind": "message", "at": None, "message": m} for m in messages]


def blocks(shown: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (e["message"]["role"], b)
        for e in shown
        if e["kind"] == "message"
        for b in (e["message"]["content"] if isinstance(e["message"]["content"], list) else [])
    ]


def user_texts(shown: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for role, b in blocks(shown) if role == "user" and b["type"] == "text"]


def test_a_claude_code_session_shows_no_caveat_and_its_shell_commands_as_command_rows() -> None:
    messages = import_claude_code(corpus_session(WITH_SHELL), with_subagents=False).session.messages
    raw = json.dumps(messages)
    assert "Caveat: The messages below" in raw and "<bash-input>uv run ty check</bash-input>" in raw  # the shapes
    shown = shown_entries(entries(messages), CLAUDE_CODE)
    texts = user_texts(shown)
    assert not [t for t in texts if t.startswith("Caveat:") or "<bash-" in t or "<command-name>" in t], texts
    calls = [b for _, b in blocks(shown) if b["type"] == "tool_use" and b["name"] == "Bash"]
    ty = [c for c in calls if c["input"] == {"command": "uv run ty check"}]
    assert ty, calls
    results = [b for _, b in blocks(shown) if b["type"] == "tool_result" and b["tool_use_id"] == ty[0]["id"]]
    assert len(results) == 1 and "error[invalid-assignment]" in results[0]["content"], results
    assert "<bash-stdout>" not in results[0]["content"] and "ty is pre-release" in results[0]["content"]
    # what the user typed is still there, and the model's words are untouched
    assert len(user_texts(shown)) > 0 and blocks(shown)[-1] == blocks(entries(messages))[-1]


def test_a_claude_code_slash_command_is_its_line_and_its_empty_output_nothing() -> None:
    said = "<command-name>/doctor</command-name>\n            <command-message>doctor</command-message>\n"
    said += "            <command-args></command-args>"
    shown = shown_entries(entries([
        {"role": "user", "content": said},
        {"role": "user", "content": "<local-command-stdout>(no content)</local-command-stdout>"},
    ]), CLAUDE_CODE)  # fmt: skip
    assert user_texts(shown) == ["/doctor"]


SKILLS = "<skills_instructions>\n## Skills\nA skill is a set of local instructions.\n</skills_instructions>"
ENV = "<environment_context>\n  <cwd>/w</cwd>\n  <shell>bash</shell>\n</environment_context>"
AGENTS_MD = "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse uv.\n</INSTRUCTIONS>"
HANDOFF = (
    "Another language model started to solve this problem and produced a summary of its thinking process. You "
    "also have access to the state of the tools that were used by that language model. Use this to build on the "
    "work that has already been done and avoid duplicating work. Here is the summary produced by the other "
    "language model, use the information in this summary to assist with your own analysis:\n"
    "Summary: the user asked to fix the greeting."
)
OUTPUT = "Chunk ID: df82e0\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 97\n"
OUTPUT += "Output:\ndef step_0():\n    return 0\n"


def test_a_codex_session_shows_the_users_words_commands_and_its_compaction_as_a_marker() -> None:
    """A rollout followed (or imported) after one of Codex's compactions: the history it kept, its handoff, our
    hook's files (developer), then the next turn."""
    patch = "*** Begin Patch\n*** Update File: greeting.txt\n@@\n-hello\n+hello, world\n*** End Patch\n"
    messages = [
        {"role": "user", "content": [{"type": "text", "text": t} for t in (SKILLS, ENV, AGENTS_MD, "fix it")]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "call_1", "name": "exec_command",
             "input": {"cmd": "sed -n '1,40p' src/app.py", "yield_time_ms": 2000}},
            {"type": "tool_use", "id": "call_2", "name": "shell", "input": {"command": ["bash", "-lc", "ls"]}},
            {"type": "tool_use", "id": "call_3", "name": "apply_patch", "input": {"patch": patch}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": OUTPUT},
            {"type": "tool_result", "tool_use_id": "call_2", "content": "a\nb\n"},
            {"type": "tool_result", "tool_use_id": "call_3", "content": "Exit code: 0\nWall time: 0 seconds\n"
                                                                        "Output:\nSuccess.\n"},
            {"type": "text", "text": HANDOFF},
            {"type": "text", "text": HEADER + "\n\n<file path=\"greeting.txt\">\nhello, world\n</file>"},
            {"type": "text", "text": "and now the farewell"},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "All done."}]},
    ]  # fmt: skip
    shown = shown_entries(entries(messages), CODEX)
    assert user_texts(shown) == ["fix it", "and now the farewell"]
    inputs = {b["id"]: b["input"] for _, b in blocks(shown) if b["type"] == "tool_use"}
    assert inputs == {
        "call_1": {"command": "sed -n '1,40p' src/app.py"},
        "call_2": {"command": "ls"},
        "call_3": {"path": "greeting.txt"},
    }
    outputs = {b["tool_use_id"]: b["content"] for _, b in blocks(shown) if b["type"] == "tool_result"}
    assert outputs == {"call_1": "def step_0():\n    return 0\n", "call_2": "a\nb\n", "call_3": "Success.\n"}
    kinds = [e["kind"] for e in shown]
    assert kinds == ["message", "message", "message", "compaction", "message", "message"], kinds
    marker = shown[3]
    assert marker["summarizer"] == "agent" and marker["summary"] == "Summary: the user asked to fix the greeting."
    # the message the marker falls in is split there: results before it, the user's next words after it
    assert [b["type"] for b in shown[2]["message"]["content"]] == ["tool_result"] * 3
    assert shown[4]["message"]["content"] == [{"type": "text", "text": "and now the farewell"}]


def test_a_users_own_words_that_look_like_markup_are_kept() -> None:
    said = ["<b>bold</b> is not rendered", "why does <environment_context> show up?", "Caveat: mine"]
    for agent in registered.AGENTS:
        typed = entries([{"role": "user", "content": [{"type": "text", "text": t} for t in said]}])
        assert user_texts(shown_entries(typed, agent.shown_records)) == said, agent.name


def test_one_agents_plumbing_rule_never_hides_another_agents_users_words() -> None:
    """A Claude Code user who types ``<foo>bar</foo>`` sees it in the chat; the same text in a Codex rollout is
    Codex's context for its model (a text wholly of elements), hidden there only."""
    typed = entries([{"role": "user", "content": "<foo>bar</foo>"}, {"role": "user", "content": ENV}])
    assert user_texts(shown_entries(typed, CLAUDE_CODE)) == ["<foo>bar</foo>", ENV]
    assert user_texts(shown_entries(typed, CODEX)) == []
    # Claude Code's own context for its model stays hidden in its chat
    reminder = "<system-reminder>\nToday's date is 2026-12-06.\n</system-reminder>"
    assert user_texts(shown_entries(entries([{"role": "user", "content": reminder}]), CLAUDE_CODE)) == []


def test_each_agent_names_its_own_records_only() -> None:
    assert claude_code_block(CAVEAT + ". DO NOT respond") == Dropped()
    assert claude_code_block("<bash-input>ls -la</bash-input>") == Command("ls -la")
    assert claude_code_block("<bash-stdout></bash-stdout><bash-stderr>no such file</bash-stderr>") == CommandOutput(
        "no such file", failed=True
    )
    assert claude_code_block(ENV) is None  # not Claude Code's: Codex's reader says what it is
    assert codex_block(ENV) == Dropped() and codex_block(HEADER + "\n\nfiles") == Dropped()
    # Codex 0.171.0's developer item joins its parts: skills, permissions (a name with a space), tools
    joined = SKILLS + "<permissions instructions>\nsandbox\n</permissions instructions><tools>\nx\n</tools>"
    assert codex_block(joined) == Dropped()
    assert HANDOFF.startswith(CODEX_HANDOFF)
    assert codex_block(HANDOFF) == Handoff("Summary: the user asked to fix the greeting.")
    assert codex_block("fix it") is None and claude_code_block("fix it") is None


def test_a_claude_code_slash_commands_output_is_the_result_of_its_row() -> None:
    """The records Claude Code 2.1.332 logged for ``/compact`` (tests/fixtures/claude_code, recorded from the real
    CLI: its caveat, the command, its output), then a ``/mcp`` whose output says what failed."""
    fixture = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
    records = [json.loads(line) for line in fixture.read_text().splitlines()]
    marks = ("<local-command-", "<command-name>")
    typed = [r["message"] for r in records if str((r.get("message") or {}).get("content")).startswith(marks)]
    assert "<local-command-stdout>Compacted" in json.dumps(typed)  # the shapes
    failed = "<local-command-stderr>Failed to connect to MCP server docs</local-command-stderr>"
    mcp = [{"role": "user", "content": "<command-name>/mcp</command-name>"}, {"role": "user", "content": failed}]
    shown = shown_entries(entries([*typed, *mcp]), CLAUDE_CODE)
    assert user_texts(shown) == []  # no caveat, no tags
    rows = [b for _, b in blocks(shown) if b["type"] == "tool_use"]
    assert [(r["name"], r["input"]) for r in rows] == [
        ("SlashCommand", {"command": "/compact"}),
        ("SlashCommand", {"command": "/mcp"}),
    ]
    results = [b for _, b in blocks(shown) if b["type"] == "tool_result"]
    assert [(r["tool_use_id"], r["content"], r.get("is_error", False)) for r in results] == [
        (rows[0]["id"], "Compacted", False),  # without Claude Code's key hint "(ctrl+o to see full summary)"
        (rows[1]["id"], "Failed to connect to MCP server docs", True),
    ]


def test_output_of_no_command_is_shown_without_its_tags() -> None:
    shown = shown_entries(
        entries([{"role": "user", "content": "<local-command-stdout>See ya!</local-command-stdout>"}]), CLAUDE_CODE
    )
    assert user_texts(shown) == ["See ya!"]


def test_claude_codes_own_compaction_is_a_marker_with_its_summary_not_the_users_words() -> None:
    """The summary message Claude Code 2.1.332 wrote after each compaction (tests/fixtures/claude_code, recorded
    from the real CLI) is shown as the agent's compaction marker holding the summary."""
    fixture = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"
    records = [json.loads(line) for line in fixture.read_text().splitlines()]
    summaries = [r["message"] for r in records if r.get("isCompactSummary")]
    assert len(summaries) == 2  # the shapes
    shown = shown_entries(entries([{"role": "user", "content": "Read them all."}, *summaries]), CLAUDE_CODE)
    assert user_texts(shown) == ["Read them all."]
    markers = [e for e in shown if e["kind"] == "compaction"]
    assert len(markers) == 2 and all(m["summarizer"] == "agent" for m in markers), markers
    assert markers[0]["summary"].startswith("The user asked for work on the project"), markers[0]
    assert "<system-reminder>" not in markers[0]["summary"]
