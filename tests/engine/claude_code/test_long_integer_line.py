"""Round 4: a number too long to convert affects its line only (on main a 5,000-digit integer on one Claude Code
line made the whole transcript unreadable: follow showed 0 messages, import failed whole, the hook printed
nothing)."""

from __future__ import annotations

from pathlib import Path

from tests.evaluation.session_log import SessionLog

from compact_lsp.engine.claude_code.log_lines import parse_log_lines, starts_with_json_line
from compact_lsp.engine.claude_code.transcript_log import import_claude_code


def test_a_too_long_integer_is_that_lines_problem_only(tmp_path: Path) -> None:
    log = SessionLog(cwd=str(tmp_path), session_id="5e55-long")
    log.user("hello")
    log.say("hi there")
    path = log.write(tmp_path, "long.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    huge = b'{"type": "user", "n": ' + b"9" * 5_000 + b"}\n"
    path.write_bytes(huge + b"".join(lines))
    records, problems = parse_log_lines(path.read_bytes())
    assert [p.line_no for p in problems] == [1] and len(records) == len(lines)
    assert starts_with_json_line(huge + b"".join(lines)) is False  # the first line alone: not a crash
    path.write_bytes(b"".join([lines[0], huge, *lines[1:]]))
    imported = import_claude_code(path, with_subagents=False)
    assert [m["role"] for m in imported.session.messages] == ["user", "assistant"]
    assert [p.line_no for p in imported.problems] == [2]
