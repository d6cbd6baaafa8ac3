"""A followed Gemini CLI session's chat from its whole session file (agents/gemini_cli/chat.py), on the file the real
Gemini CLI 0.61.0 wrote in its TUI (a region of big.py read, an automatic compression, two turns): what came before
the compression is kept, the compression is an automatic marker with the prompts Gemini reported around it, and
nothing of what Gemini wrote for the model (its session context, the summary's messages) is a message."""

from __future__ import annotations

import json
from pathlib import Path

from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.gemini_cli.chat import gemini_cli_chat_entries
from compact_lsp.agents.gemini_cli.shown import SHOWN
from compact_lsp.agents.shown import shown_entries

FIXTURE = Path(__file__).parents[2] / "fixtures" / "gemini_cli" / "compressed-session.jsonl"


def texts(entries: list[dict[str, object]]) -> list[str]:
    return [b["text"] for e in entries if e["kind"] == "message" for b in e["message"]["content"] if "text" in b]  # type: ignore[index,attr-defined]


def test_the_whole_session_with_its_compression_as_an_automatic_marker() -> None:
    entries = shown_entries(gemini_cli_chat_entries(FIXTURE), SHOWN)
    kinds = [e["kind"] for e in entries]
    assert kinds.count("compaction") == 1
    at = kinds.index("compaction")
    marker = entries[at]
    assert (marker["trigger"], marker["summarizer"], marker["tokensBefore"], marker["tokensAfter"]) == (
        "auto", "agent", 900_000, 6_000,
    )  # fmt: skip
    assert marker["summary"] == "the user read big.py lines 100-120" and marker["at"] == "2026-12-06T02:16:46.977Z"
    assert texts(entries[:at]) == ["Read lines 100 to 120 of big.py", "Read it."]  # gone from the follower's window
    assert texts(entries[at + 1 :]) == ["What does step_40 return", "Answer 3.", "And step_41", "Answer 4."]
    calls = [b for e in entries[:at] for b in e["message"]["content"] if b["type"] == "tool_use"]
    results = [b for e in entries[:at] for b in e["message"]["content"] if b["type"] == "tool_result"]
    assert [c["name"] for c in calls] == ["read_file"] and len(results) == 1  # once, though Gemini wrote it twice
    whole = json.dumps(entries)
    assert "session_context" not in whole and "Got it. Thanks" not in whole and "state_snapshot" not in whole
    assert entries[0]["at"] == "2026-12-06T02:16:43.450Z"


def test_a_resumed_session_is_not_compressed_again(tmp_path: Path) -> None:
    """``--resume`` sets the message list again (the compression's, then what followed): the same ids, so no new
    marker and no message twice; what the resumed session says next follows."""
    lines = FIXTURE.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    compressed = next(
        r["$set"]["messages"] for r in records if "messages" in r.get("$set", {}) and len(r["$set"]["messages"]) > 1
    )
    later = [r for r in records if r.get("type") in ("user", "gemini") and r["timestamp"] > "2026-12-06T02:16:46.98"]
    resumed = [{"$set": {"messages": [*compressed, *later]}},
               {"id": "r1", "timestamp": "2026-12-06T03:00:00.000Z", "type": "user", "content": [{"text": "resumed"}]},
               {"id": "r2", "timestamp": "2026-12-06T03:00:01.000Z", "type": "gemini", "content": "Back.",
                "tokens": {"input": 7000}}]  # fmt: skip
    session = tmp_path / "session-2026-12-06T02-16-4dbfce25.jsonl"
    session.write_text("\n".join([*lines, *(json.dumps(r) for r in resumed)]) + "\n")
    entries = shown_entries(gemini_cli_chat_entries(session), SHOWN)
    assert [e["kind"] for e in entries].count("compaction") == 1
    assert texts(entries)[-6:] == [
        "What does step_40 return",
        "Answer 3.",
        "And step_41",
        "Answer 4.",
        "resumed",
        "Back.",
    ]


def test_a_shell_row_shows_its_command_and_what_it_printed() -> None:
    """Recorded in Gemini CLI 0.61.0's TUI (yolo): ``cat notes.md``, then ``ls`` of a missing folder (exit code 2).
    Gemini gives the model each result framed (``<untrusted_context>``, ``Output:``, ``Exit Code:``, ``Process
    Group PGID:``); the row shows the command line and the output the user saw."""
    entries = shown_entries(gemini_cli_chat_entries(FIXTURE.with_name("shell-session.jsonl")), SHOWN)
    blocks = [b for e in entries for b in e["message"]["content"]]
    assert [b["input"] for b in blocks if b["type"] == "tool_use"] == [{"command": "cat notes.md"},
                                                                       {"command": "ls missing-dir"}]  # fmt: skip
    assert [b["content"] for b in blocks if b["type"] == "tool_result"] == [
        "NOTES_LINE: answer within 30 seconds.",
        "ls: cannot access 'missing-dir': No such file or directory",
    ]
    assert texts(entries) == [
        "show me the notes and missing-dir",
        "The notes say 30 seconds; missing-dir is not there.",
    ]


def test_a_read_of_part_of_a_file_shows_its_lines_not_geminis_note() -> None:
    """Gemini CLI 0.61.0 gave its model lines 100-120 of big.py after its note ("IMPORTANT: The file content has been
    truncated", how to read on): the row shows the lines, and which they are, without the note."""
    entries = shown_entries(gemini_cli_chat_entries(FIXTURE), SHOWN)
    [result] = [b["content"] for e in entries if e["kind"] == "message" for b in e["message"]["content"]
                if b["type"] == "tool_result"]  # fmt: skip
    assert result.startswith("def step_33():\n    return 33\n") and "def step_39():" in result
    assert result.endswith("\n(lines 100-120 of 9001: truncated by Gemini CLI)")
    assert "IMPORTANT" not in result and "FILE CONTENT" not in result and "start_line" not in result


def test_only_geminis_own_frame_is_taken_off() -> None:
    from compact_lsp.agents.gemini_cli.shown import shown_result

    framed = "<untrusted_context>\nOutput: (empty)\nError: spawn failed\nExit Code: 1\n</untrusted_context>"
    assert shown_result(framed) == "spawn failed"
    assert shown_result("Output: a line a user's own command printed") is None  # no frame: as it is
    assert shown_result("IMPORTANT: The file content has been truncated.\nmy own notes") is None  # not Gemini's note


def test_a_typed_compress_is_a_manual_marker() -> None:
    """Recorded in Gemini CLI 0.61.0's TUI: a read, the answer (8,000 reported), the user's ``/compress`` (the TUI:
    "Chat history compressed from 8000 to 150 tokens"), a turn. The file holds no command and no figures: the
    compression's ``$set``, then an empty ``info`` record where Gemini's own writes "Context compressed from…"."""
    entries = shown_entries(gemini_cli_chat_entries(FIXTURE.with_name("typed-compress.jsonl")), SHOWN)
    [marker] = [e for e in entries if e["kind"] == "compaction"]
    assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("manual", 8_000, 6_000)
    assert marker["summary"] == "The user read notes.md."
    assert texts(entries) == ["what do the notes say", "The notes say 30 seconds.", "and now", "Answer 3."]
    assert entries.index(marker) == 4


def test_an_imported_copy_shows_the_compressions_summary_as_its_marker_never_the_context() -> None:
    """An imported copy holds what the model held: Gemini's session context, its summary, then the turns after.
    The chat shows the summary as the agent's marker (figures unknown) and never the session context."""
    log = GEMINI_CLI.read_log(str(FIXTURE.with_name("typed-compress.jsonl")))
    entries = shown_entries([{"kind": "message", "at": None, "message": m} for m in log.messages], SHOWN)
    assert "<session_context>" in json.dumps(log.messages)  # the shapes
    [marker] = [e for e in entries if e["kind"] == "compaction"]
    assert (marker["summary"], marker["trigger"], marker["tokensBefore"]) == ("The user read notes.md.", None, None)
    assert texts(entries) == ["Got it. Thanks for the additional context!", "and now", "Answer 3."]
    assert "<session_context>" not in json.dumps(entries)
