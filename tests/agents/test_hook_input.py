"""The hook input every agent's hook checks the same way (agents/hook_input.py): the ``SessionStart`` hooks' and
Gemini CLI's ``BeforeModel`` hook refuse the same inputs with the same words, and read a session file the same way."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compact_lsp.agents.gemini_cli.request import parse_input
from compact_lsp.agents.hook_input import transcript_tail
from compact_lsp.agents.hook_io import parse_hook_input

GOOD = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp"}


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        pytest.param(b"\xff", "hook input is not JSON", id="not-utf8"),
        pytest.param(b"[1]", "hook input is not a JSON object", id="not-an-object"),
        pytest.param({**GOOD, "cwd": ""}, "'cwd' must be a non-empty string", id="empty-cwd"),
        pytest.param({**GOOD, "session_id": 7}, "'session_id' must be a non-empty string", id="number-id"),
        pytest.param({**GOOD, "transcript_path": "t.jsonl"}, "must be absolute paths", id="relative-transcript"),
        pytest.param({**GOOD, "cwd": "/tmp/a\x00b"}, "'cwd'", id="nul-in-cwd"),
    ],
)
def test_every_hook_refuses_the_same_input_in_the_same_words(raw: bytes | dict[str, object], words: str) -> None:
    def as_sent(event: dict[str, object]) -> bytes:
        return raw if isinstance(raw, bytes) else json.dumps({**raw, **event}).encode()

    session_start = as_sent({"hook_event_name": "SessionStart", "source": "compact"})
    before_model = as_sent({"hook_event_name": "BeforeModel", "llm_request": {"messages": []}})
    with pytest.raises(ValueError, match=words) as theirs:
        parse_hook_input(session_start)
    with pytest.raises(ValueError, match=words) as gemini:
        parse_input(before_model)
    assert str(theirs.value) == str(gemini.value)


def test_a_session_file_is_read_from_its_end_from_a_whole_line(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    session.write_bytes(b"".join(b'{"n": %d}\n' % n for n in range(1000)))
    tail = transcript_tail(str(session), max_bytes=100)
    assert tail.startswith(b'{"n": ') and tail.endswith(b'{"n": 999}\n') and len(tail) < 100
    linked = tmp_path / "linked.jsonl"
    linked.symlink_to(session)
    with pytest.raises(OSError):
        transcript_tail(str(linked))  # a link at its end is not followed
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError, match="not a regular file"):
        transcript_tail(str(tmp_path / "fifo"))  # never blocks on a pipe
