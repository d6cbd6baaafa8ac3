"""A Qwen Code transcript followed as Qwen appends to it (the real one the real-CLI tier wrote, fed line by line and
in torn pieces): what the follower holds is what reading the transcript whole gives at every settled point, a
compaction starts the window again, a replaced file is read again, and the working set says Qwen's file tools in
the engine's words."""

from __future__ import annotations

import os
from pathlib import Path

from compact_lsp.agents.qwen_code.chat_log import read_chat
from compact_lsp.agents.qwen_code.live import FollowedQwenSession
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, passive

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qwen_code" / "automatic-compaction.jsonl"
COUNTER = TiktokenCounter()


def follower(path: Path) -> FollowedQwenSession:
    def make(session_id: str, title: str) -> ContextSession:
        return ContextSession(session_id, settings=passive(EngineSettings()), counter=COUNTER, title=title)

    return FollowedQwenSession(path, make)


def whole(path: Path) -> list[Message]:
    return repair(read_chat(str(path)).messages).messages


def test_followed_line_by_line_in_torn_pieces_it_holds_what_reading_it_whole_does(tmp_path: Path) -> None:
    path = tmp_path / "3841d47e-2df8-4f1a-a35b-820243284400.jsonl"
    path.write_bytes(b"")
    followed = follower(path)
    compacted = False
    with path.open("ab") as f:
        for raw in FIXTURE.read_bytes().splitlines(keepends=True):
            half = len(raw) // 2
            f.write(raw[:half])  # Qwen's write caught half way: nothing of the torn line is read yet
            f.flush()
            before = followed.messages
            followed.update()
            assert followed.messages == before
            f.write(raw[half:])
            f.flush()
            assert followed.update() is True
            compacted = compacted or b'"chat_compression"' in raw
            if b'"type": "assistant"' in raw or b'"type":"assistant"' in raw:
                assert followed.messages == whole(path)
    assert compacted and followed.messages == whole(path)
    first = followed.messages[0]["content"][0]
    assert first["type"] == "text" and first["text"].startswith("<state_snapshot>")  # the window starts again
    assert followed.title == "please read big.py around line 1000" and followed.usage().total == 5_000
    assert followed.context_window() == 100_000

    work = followed.working_set()  # read_file said as the engine's Read; the shell call a command run
    [big] = work.read_only()
    assert big.path.endswith("/big.py") and big.seen is not None  # the lines its header states
    assert (big.seen.start, big.seen.count) == (1001, 40) and big.seen.text.startswith("handler_1000 = ")
    assert [run.command for run in work.runs] == ["true"]


def test_a_replaced_transcript_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(FIXTURE.read_bytes())
    followed = follower(path)
    assert followed.update() is True and followed.messages
    other = tmp_path / "other.tmp"
    other.write_bytes(b'{"type": "user", "sessionId": "s", "message": {"role": "user", "parts": [{"text": "hi"}]}}\n')
    os.replace(other, path)
    assert followed.update() is True
    assert followed.messages == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
