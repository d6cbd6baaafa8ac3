"""Qwen Code transcripts read as the model saw them, for ``compact-lsp inspect`` and ``import``: a real transcript
(tests/fixtures/qwen_code/automatic-compaction.jsonl, written by Qwen Code 0.24.4 in the real-CLI tier: a region
of big.py read, an automatic compaction, two more tool calls) and a hostile one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compact_lsp.agents.qwen_code.chat_log import is_qwen_chat, read_chat

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qwen_code" / "automatic-compaction.jsonl"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "compact_lsp", *args], capture_output=True, text=True, timeout=60)


def test_inspect_reports_the_window_since_qwen_compacted() -> None:
    done = cli("inspect", "--json", str(FIXTURE))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["agent"] == "qwen-code" and report["title"] == "please read big.py around line 1000"
    assert report["compaction"]["compactions"] == 1 and report["compaction"]["trigger"] == "token_limit"
    assert report["usage"]["contextWindow"] == 100_000  # the window Qwen was configured with, from its records
    assert report["usage"]["reported"] == 5_000  # Qwen's last promptTokenCount
    chat = read_chat(str(FIXTURE))
    first = chat.messages[0]["content"][0]
    assert first["type"] == "text" and first["text"].startswith("<state_snapshot>")  # the summary starts it
    calls = [b["name"] for m in chat.messages for b in m["content"] if b["type"] == "tool_use"]
    assert calls == ["read_file", "run_shell_command", "glob"]  # what Qwen kept, then what followed
    assert "Reviewed" not in done.stdout and done.stderr == ""


def test_import_makes_a_session_once(tmp_path: Path) -> None:
    args = ("import", str(FIXTURE), "--workspace", str(tmp_path), "--session-dir", str(tmp_path / "store"))
    first = cli(*args)
    assert first.returncode == 0, first.stderr
    # qw-, never the followed session's qwen- id: the copy is the user's (agents/importing.py)
    assert first.stdout.startswith("qw-3841d47e-2df8-4f1a-a35b-820243284400\t10 messages")
    again = cli(*args)
    assert again.returncode == 1 and "already imported as session qw-3841d47e" in again.stderr


def test_a_hostile_transcript_is_read_as_far_as_it_makes_sense(tmp_path: Path) -> None:
    lines = [
        json.dumps({"type": "user", "sessionId": "s1", "cwd": "/\x00bad", "message": {"role": "user",
                    "parts": [{"text": "fix it"}]}}),
        "{not json", "[1, 2]", '{"type": "user", "message": NaN}',
        json.dumps({"type": "assistant", "sessionId": "s1", "usageMetadata": {"promptTokenCount": -5},
                    "contextWindowSize": True, "message": "{\"role\": \"model\", \"parts\": [{\"text\": \"ok\"},"
                    " {\"text\": \"hidden\", \"thought\": true}, {\"functionCall\": {\"id\": 7}}]}"}),
        json.dumps({"type": "system", "subtype": "chat_compression", "systemPayload": "not an object"}),
        json.dumps({"type": "tool_result", "message": {"role": "user", "parts": [
            {"functionResponse": {"id": "c1", "response": {"error": "denied"}}}]}}),
    ]  # fmt: skip
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert is_qwen_chat(str(path))
    chat = read_chat(str(path))
    assert chat.bad_lines == 3 and chat.cwd is None and chat.usage is None and chat.context_window is None
    assert len(chat.compactions) == 1  # what follows the compaction is the window
    assert chat.messages == [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "denied", "is_error": True}],
        }
    ]


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(
            {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}, id="claude-code"
        ),
        pytest.param({"type": "session_meta", "payload": {"id": "x"}}, id="codex"),
    ],
)
def test_other_agents_logs_are_not_taken_for_qwen(tmp_path: Path, first: dict[str, object]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(first) + "\n")
    assert not is_qwen_chat(str(path))
