"""Claude Code's compactions read back from its transcript for the timeline: figures, summary, re-attached files
and what a SessionStart hook's context became (inline or spilled), up to the user's next prompt."""

from __future__ import annotations

import json
from typing import Any

from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.recorded_compactions import recorded_compactions
from compact_lsp.engine.files.hook_receipts import HookReceipt


def lines(*records: dict[str, Any]) -> bytes:
    return b"".join((json.dumps({"sessionId": "s", "timestamp": "2026-12-05T10:00:00Z", **r}) + "\n").encode()
                    for r in records)  # fmt: skip


def user(uuid: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": None, "message": {"role": "user", "content": content}, **extra}


def boundary(uuid: str, trigger: str, pre: int) -> dict[str, Any]:
    meta = {"trigger": trigger, "preTokens": pre, "postTokens": pre // 10}
    return {"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": None, "compactMetadata": meta}


def attachment(uuid: str, **body: Any) -> dict[str, Any]:
    return {"type": "attachment", "uuid": uuid, "parentUuid": None, "attachment": body}


def test_each_boundary_with_its_summary_files_and_hook_context_until_the_next_prompt() -> None:
    data = lines(
        user("u0", "Start"),
        attachment("h0", type="hook_additional_context", content=["before any compaction"], hookName="SessionStart"),
        boundary("b1", "auto", 150_000),
        user("s1", "This session is being continued… first", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        {"type": "assistant", "uuid": "p1", "parentUuid": None,
         "message": {"role": "assistant", "id": "m", "content": [{"type": "text", "text": "kept verbatim"}]}},
        attachment("f1", type="file", filename="/w/a.py"),
        attachment("h1", type="hook_additional_context", content=["x" * 120], hookName="SessionStart"),
        user("r1", [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]),
        attachment("h1b", type="hook_additional_context", content=["still this one"], hookName="SessionStart:compact"),
        user("u1", "Go on"),
        attachment("late", type="file", filename="/w/not-a-reattachment.py"),
        boundary("b2", "manual", 90_000),
        attachment("h2", type="hook_additional_context", content=["<persisted-output>saved to /tmp/x"],
                   hookName="SessionStart"),
    )  # fmt: skip
    records, problems = parse_log_lines(data, lean=True)
    assert problems == []
    first, second = recorded_compactions(records)
    assert (first.trigger, first.tokens_before, first.tokens_after) == ("auto", 150_000, 15_000)
    assert first.summary == "This session is being continued… first"
    assert first.reattached == ["/w/a.py"]
    assert first.receipts == [HookReceipt("SessionStart", 120, False), HookReceipt("SessionStart:compact", 14, False)]
    assert (second.trigger, second.summary, second.reattached) == ("manual", None, [])
    assert second.receipts == [HookReceipt("SessionStart", 33, True)]
