"""Claude Code 2.x transcripts: compaction boundaries, attachments, the preserved segment, new record kinds.

The shapes are those the real CLI (2.1.332) writes (tests/claude_code_cli asserts them against it); this file
keeps the parser honest where that tier is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.models import context_window, window_by_name
from compact_lsp.engine.claude_code.transcript_log import import_claude_code

S = "sess-1"


def rec(kind: str, uuid: str | None, parent: str | None, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": S, "cwd": "/w", **extra}


def user(uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    return rec("user", uuid, parent, message={"role": "user", "content": content}, **extra)


def assistant(uuid: str, parent: str, text: str, mid: str) -> dict[str, Any]:
    message = {"role": "assistant", "id": mid, "model": "claude-opus-5-5", "content": [{"type": "text", "text": text}]}
    return rec("assistant", uuid, parent, message=message)


def attachment(uuid: str, parent: str, kind: str, *rendered: str) -> dict[str, Any]:
    return rec("attachment", uuid, parent, attachment={"type": kind}, rendered=[{"content": r} for r in rendered],
               renderedRole="user")  # fmt: skip


def transcript(tmp_path: Path) -> Path:
    lines: list[Any] = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": S},
        user("u1", None, "Please make b3 return 33"),
        attachment("a1", "u1", "environment", "Primary working directory: /w"),
        assistant("m1", "a1", "Looking at b.py.", "msg_1"),
        '{"type":"api-request-blob","sessionId":"sess-1","hash":"h","message":{"not": "parsed at all"',
        {"type": "brand-new-kind", "sessionId": S, "anything": [1, 2]},
        user("u2", "m1", "Thanks, carry on"),
        assistant("m2", "u2", "Done: b3 returns 33.", "msg_2"),
        {"type": "cost-state", "sessionId": S, "modelUsage": {"claude-opus-5-5": {"contextWindow": 1_000_000}}},
        rec(
            "system",
            "b1",
            None,
            subtype="compact_boundary",
            logicalParentUuid="m2",
            compactMetadata={
                "trigger": "manual",
                "preTokens": 900,
                "postTokens": 300,
                "preservedMessages": {"uuids": ["m2"]},
            },
        ),
        user(
            "s1",
            "b1",
            "This session is being continued from a previous conversation. Summary: b3 fixed.",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        ),
        attachment("f1", "s1", "file", "Called the Read tool: b.py", "1\tdef b3():\n2\t    return 33"),
        user("u3", "f1", "What next?"),
        assistant("m3", "u3", "Nothing left.", "msg_3"),
    ]
    path = tmp_path / f"{S}.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_the_context_after_the_boundary_and_the_history_before_it(tmp_path: Path) -> None:
    imported = import_claude_code(transcript(tmp_path))
    now = imported.session.messages
    assert [m["role"] for m in now] == ["user", "assistant", "user", "assistant"]
    assert "continued from a previous conversation" in json.dumps(now[0])
    assert now[1]["content"] == [{"type": "text", "text": "Done: b3 returns 33."}], "the preserved segment"
    assert "def b3()" in json.dumps(now[2]) and "What next?" in json.dumps(now[2])
    history = json.dumps(imported.history)
    assert "Please make b3 return 33" in history and "Looking at b.py." in history
    assert imported.session.title == "Please make b3 return 33"
    assert imported.compaction == {"trigger": "manual", "preTokens": 900, "postTokens": 300,
                                   "preservedMessages": {"uuids": ["m2"]}}  # fmt: skip
    assert "1\tdef b3():\n2\t    return 33" in imported.attachment_texts
    assert "What next?" not in imported.attachment_texts


def test_unknown_and_bookkeeping_records_are_counted_never_fatal(tmp_path: Path) -> None:
    imported = import_claude_code(transcript(tmp_path))
    assert imported.problems == []
    skipped = imported.skipped_records
    assert skipped["brand-new-kind"] == 1 and skipped["api-request-blob"] == 1 and skipped["queue-operation"] == 1


def test_the_window_comes_from_the_transcript_else_the_models_table(tmp_path: Path) -> None:
    imported = import_claude_code(transcript(tmp_path))
    assert (imported.model, imported.context_window) == ("claude-opus-5-5", 1_000_000)
    assert context_window([{"type": "cost-state", "modelUsage": {"m": {"contextWindow": 300_000}}}], "m") == 300_000
    assert window_by_name("claude-sonnet-4-5[1m]") == 1_000_000
    assert window_by_name("claude-haiku-4-5-20251001") == 200_000
    assert window_by_name("some-other-model") is None
