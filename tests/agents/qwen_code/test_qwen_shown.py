"""A Qwen Code session as its user saw it (``compact/transcript`` of a followed or imported session), on the real
transcript the real-CLI tier wrote: Qwen's summary is a compaction marker, its list of files re-read after it is
not shown, a shell call shows its command and its output without Qwen's frame."""

from __future__ import annotations

from pathlib import Path

from compact_lsp.agents.qwen_code.chat_log import read_chat
from compact_lsp.agents.qwen_code.shown import SHOWN
from compact_lsp.agents.shown import shown_entries

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qwen_code" / "automatic-compaction.jsonl"


def test_qwen_codes_plumbing_is_not_shown_and_its_summary_is_a_marker() -> None:
    messages = read_chat(str(FIXTURE)).messages
    shown = shown_entries([{"kind": "message", "at": None, "message": m} for m in messages], SHOWN)
    marker, *rest = shown
    assert marker["kind"] == "compaction" and marker["summary"] == "the user reads big.py lines 1001-1040"
    text = repr(rest)
    assert "Resume the prior task" not in text and "recently accessed before context was compacted" not in text
    calls = [b for e in rest for b in e["message"]["content"] if b["type"] == "tool_use"]
    assert {"command": "true"} in [c["input"] for c in calls]
    shell = next(c["id"] for c in calls if c["name"] == "run_shell_command")
    [result] = [b for e in rest for b in e["message"]["content"] if b.get("tool_use_id") == shell]
    assert result["content"] == ""  # "Output: (empty)", "Error: (none)": nothing the command printed


def test_a_shell_result_keeps_what_the_command_printed_and_its_errors() -> None:
    from compact_lsp.agents.qwen_code.shown import shown_result

    framed = "Command: make\nDirectory: (root)\nOutput: built\nExit Code: 9\nError: oops\nExit Code: 2\nSignal: (none)"
    assert shown_result(framed) == "built\nExit Code: 9\noops"
    assert shown_result("plain output") is None
