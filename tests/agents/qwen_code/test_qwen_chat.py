"""A followed Qwen Code session's chat from its whole transcript (agents/qwen_code/chat.py), on transcripts the real
Qwen Code 0.24.4 wrote: every turn as it happened, each compaction a marker with the figures and trigger its
``chat_compression`` record holds, the user's ``/compress`` where they typed it, before its marker."""

from __future__ import annotations

import json
from pathlib import Path

from compact_lsp.agents.qwen_code.chat import qwen_code_chat_entries
from compact_lsp.agents.qwen_code.shown import SHOWN
from compact_lsp.agents.shown import shown_entries

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "qwen_code"
TUI = FIXTURES / "tui-three-compress.jsonl"
"""Recorded in Qwen's TUI (tests/qwen_code/test_real_tui.py): two turns of reads, /compress after each, a turn with
no tool, /compress again, a last turn."""
AUTOMATIC = FIXTURES / "automatic-compaction.jsonl"
"""Recorded in print mode (tests/qwen_code/test_real_qwen_code.py): a read, an automatic compaction, more tools."""


def texts(entries: list[dict[str, object]]) -> list[str]:
    return [b["text"] for e in entries if e["kind"] == "message" for b in e["message"]["content"] if "text" in b]  # type: ignore[index,attr-defined]


def test_each_compress_is_typed_before_its_manual_marker_and_no_turn_is_lost() -> None:
    entries = shown_entries(qwen_code_chat_entries(TUI), SHOWN)
    rows = ["marker" if e["kind"] == "compaction" else e["message"]["content"][0].get("text") for e in entries]
    prompts = ["review the handlers in big.py", "now the wire module", "go on", "thanks, that is all"]
    assert [r for r in rows if r in (*prompts, "/compress", "marker")] == [
        prompts[0], "/compress", "marker", prompts[1], "/compress", "marker", prompts[2], "/compress", "marker",
        prompts[3],
    ]  # fmt: skip
    markers = [
        (e["trigger"], e["tokensBefore"], e["tokensAfter"], e["summary"]) for e in entries if e["kind"] == "compaction"
    ]
    assert markers == [
        ("manual", 20_000, 16_921, "Summary 1: files were reviewed."),
        ("manual", 20_000, 16_921, "Summary 2: files were reviewed."),
        ("manual", 20_000, 17_502, "Summary 3: files were reviewed."),
    ]
    assert len({e["boundaryId"] for e in entries if e["kind"] == "compaction"}) == 3
    said = texts(entries)
    for text in prompts:
        assert said.count(text) == 1  # as typed, never again from the history Qwen kept
    whole = json.dumps(entries)
    assert "state_snapshot" not in whole and "Resume the prior task" not in whole and "Got it. Thanks" not in whole
    assert "recently accessed" not in whole and "Recently accessed file" not in whole  # Qwen's re-attached files
    commands = [b["input"] for e in entries if e["kind"] == "message" for b in e["message"]["content"]
                if b["type"] == "tool_use" and b["name"] == "run_shell_command"]  # fmt: skip
    assert commands == [{"command": "cat notes.md"}, {"command": "sed -n '1,12p' docs/guide.md"}]
    assert "NOTES_LINE: the handlers must answer within 30 seconds." in whole and "Directory: (root)" not in whole
    assert entries[0]["at"] == "2026-12-06T08:29:40.615Z"  # each message keeps when Qwen wrote it


def test_an_automatic_compaction_keeps_what_came_before_it_with_its_figures() -> None:
    entries = shown_entries(qwen_code_chat_entries(AUTOMATIC), SHOWN)
    kinds = [e["kind"] for e in entries]
    assert kinds.count("compaction") == 1
    marker = entries[kinds.index("compaction")]
    assert (marker["trigger"], marker["tokensBefore"], marker["tokensAfter"]) == ("auto", 72_689, 70_480)
    assert marker["summary"] == "the user reads big.py lines 1001-1040"
    before = json.dumps(entries[: kinds.index("compaction")])
    assert (
        "please read big.py around line 1000" in before and "handler_1000 = respond" in before
    )  # the follower's window lost them
    after = entries[kinds.index("compaction") + 1 :]
    assert json.dumps(after).count("handler_1000 = respond") == 0  # what Qwen kept is not shown twice
    assert texts(after)[-1] == "done"


def test_the_user_sees_what_they_typed_not_a_prompt_hooks_context(tmp_path: Path) -> None:
    """Shapes from Qwen Code 0.24.4's own reader of its transcripts (``projectUserTranscriptForDisplay``): a
    ``UserPromptSubmit`` hook's context is a last part of the user's record, or ``systemPayload.hookContext`` with
    the typed ``displayText``; Qwen's own notifications are user records not of ``real_user``."""
    hook = "<qwen:user-prompt-submit-context>\nfrom a hook\n</qwen:user-prompt-submit-context>"

    def user(parts: list[dict[str, str]], **more: object) -> str:
        record = {"type": "user", "sessionId": "s", "timestamp": "2026-12-06T09:00:00.000Z",
                  "message": {"role": "user", "parts": parts}, **more}  # fmt: skip
        return json.dumps(record) + "\n"

    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        user([{"text": "first question"}, {"text": hook}], provenance="real_user")
        + user([{"text": "expanded @notes.md and more"}], provenance="real_user",
               systemPayload={"displayText": "typed @notes.md", "hookContext": "from a hook"})
        + user([{"text": "Background task finished"}], provenance="system", subtype="background_task_completed")
    )  # fmt: skip
    assert texts(shown_entries(qwen_code_chat_entries(transcript), SHOWN)) == ["first question", "typed @notes.md"]
