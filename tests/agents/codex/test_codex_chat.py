"""A followed Codex session's chat from its whole rollout (agents/codex/chat.py): the user's ``/compact`` is a
manual marker where it happened, and a compaction whose rollout holds no usage is a marker without figures."""

from __future__ import annotations

from pathlib import Path

from compact_lsp.agents.codex.chat import codex_chat_entries
from compact_lsp.agents.codex.shown import SHOWN
from compact_lsp.agents.shown import shown_entries

from .rollouts import assistant, line, turn, user

HANDOFF = (
    "Another language model started to solve this problem and produced a summary of its thinking process. Here is "
    "the summary produced by the other language model, use the information in this summary to assist with your own "
    "analysis:\nSummary: f1.py and f2.py read fine."
)


def test_the_users_compact_is_a_manual_marker_between_the_turns_it_came_between(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(
        b"".join([
            line("session_meta", {"id": "t", "cwd": str(tmp_path)}),
            line("event_msg", {"type": "task_started", "turn_attribution": {"turn_id": "1"}}),
            *turn(1), *turn(2),
            line("event_msg", {"type": "task_started"}),  # /compact: a task of its own, for no user message
            line("compacted", {"message": HANDOFF, "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look at f1.py"}]},
            ]}),
            line("event_msg", {"type": "task_started", "turn_attribution": {"turn_id": "3"}}),
            user("and f3.py?"), assistant("Also fine."),
        ])
    )  # fmt: skip
    entries = shown_entries(codex_chat_entries(rollout), SHOWN)
    kinds = [e["kind"] for e in entries]
    (marker,) = [e for e in entries if e["kind"] == "compaction"]
    texts = [b.get("text") for e in entries if e["kind"] == "message" for b in e["message"]["content"]]
    assert texts.count("look at f1.py") == 1 and "look at f2.py" in texts  # as typed, not again from what Codex kept
    assert texts[-2:] == ["and f3.py?", "Also fine."]
    at = kinds.index("compaction")
    assert entries[at - 1]["message"]["content"][-1]["text"] == "f2.py reads fine."
    assert entries[at + 1]["message"]["content"] == [{"type": "text", "text": "and f3.py?"}]
    assert marker["trigger"] == "manual" and marker["summarizer"] == "agent"
    assert (marker["tokensBefore"], marker["tokensAfter"]) == (None, None)  # no token_usage_record: none made up
    assert marker["summary"] == "Summary: f1.py and f2.py read fine."
