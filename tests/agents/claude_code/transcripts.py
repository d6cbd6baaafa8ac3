"""Real Claude Code transcripts from the corpus, cut at a synthetic compaction, with their files on disk.

``compacted_transcript`` copies a corpus session into a temporary directory as Claude Code leaves it when it runs
its ``SessionStart(compact)`` hook at a given point: the records before the point (paths moved under the temporary
workspace) and nothing of this compaction yet (2.1.332 writes its boundary, summary and re-attached files after
the hook; ``written=True`` adds the ``compact_boundary`` and summary records, shapes from shared/notes, as they
stand once written), and materialises the files as the log shows them before the point (``ReplayWorkspace``), so
the hook re-reads real bytes from disk. ``compacted_again`` appends a second window after that boundary: the
transcript at a second compaction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.conversation.messages import blocks_of, result_text, tool_uses
from compact_lsp.evaluation.workspace import ReplayWorkspace

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus" / "claude-code-sessions"
SUMMARY = "This session is being continued from a previous conversation that ran out of context. Summary: ..."


@dataclass
class Compacted:
    transcript: Path
    cwd: Path
    session_id: str
    records_before: int


def corpus_session(name: str) -> Path:
    found = sorted(CORPUS.glob(f"*/{name}.jsonl"))
    assert found, f"corpus session {name} is missing from {CORPUS}"
    return found[0]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _is_prompt(record: dict[str, Any]) -> bool:
    """A user record with the user's own words (a safe place to compact: no call is in flight)."""
    message = record.get("message")
    if record.get("type") != "user" or not isinstance(message, dict):
        return False
    return not any(b.get("type") == "tool_result" for b in blocks_of(message))


def compacted_transcript(
    source: Path, tmp: Path, fraction: float = 0.6, summary: str = SUMMARY, *, written: bool = False
) -> Compacted:
    records = _records(source)
    cwd = next(str(r["cwd"]) for r in records if isinstance(r.get("cwd"), str))
    prompts = [i for i, r in enumerate(records) if _is_prompt(r) and i >= int(len(records) * fraction)]
    cut = prompts[0] if prompts else len(records)
    ws = ReplayWorkspace(tmp, cwd)
    before = tmp / "before.jsonl"
    before.write_text("".join(json.dumps(r) + "\n" for r in records[:cut]), encoding="utf-8")
    imported = import_claude_code(before, with_subagents=False)
    messages = ws.map_messages(imported.session.messages)
    requests = {str(u.get("id")): u for m in messages for u in tool_uses(m)}
    for message in messages:
        for block in blocks_of(message):
            request = requests.get(str(block.get("tool_use_id")))
            if block.get("type") == "tool_result" and not block.get("is_error") and request is not None:
                side = imported.tool_results_side.get(str(block.get("tool_use_id")))
                ws.apply_result(str(request.get("name")), request["input"], side, result_text(block))
    root = str(ws.root)
    moved = [json.loads(json.dumps(r).replace(json.dumps(cwd)[1:-1], json.dumps(root)[1:-1])) for r in records[:cut]]
    session_id = str(moved[0].get("sessionId", source.stem))
    boundary = {"type": "system", "subtype": "compact_boundary", "parentUuid": None, "uuid": "boundary-1",
                "sessionId": session_id, "cwd": root, "content": "Conversation compacted",
                "compactMetadata": {"trigger": "auto", "preTokens": 150000}}  # fmt: skip
    summary_record = {"type": "user", "isCompactSummary": True, "parentUuid": "boundary-1", "uuid": "summary-1",
                      "sessionId": session_id, "cwd": root,
                      "message": {"role": "user", "content": [{"type": "text", "text": summary}]}}  # fmt: skip
    transcript = tmp / f"{source.stem}.jsonl"
    tail = [boundary, summary_record] if written else []
    transcript.write_text("".join(json.dumps(r) + "\n" for r in [*moved, *tail]), encoding="utf-8")
    return Compacted(transcript, ws.root, session_id, cut)


def boundary_records(session_id: str, cwd: str, last_uuid: str | None, n: int = 1) -> list[dict[str, Any]]:
    """Claude Code's ``compact_boundary`` and summary records (uuids ``boundary-n``, ``summary-n``)."""
    boundary = {
        "type": "system", "subtype": "compact_boundary", "parentUuid": None, "uuid": f"boundary-{n}",
        "logicalParentUuid": last_uuid, "sessionId": session_id, "cwd": cwd, "content": "Conversation compacted",
        "compactMetadata": {"trigger": "manual", "preTokens": 150000},
    }  # fmt: skip
    summary = {
        "type": "user", "isCompactSummary": True, "parentUuid": f"boundary-{n}", "uuid": f"summary-{n}",
        "sessionId": session_id, "cwd": cwd, "isVisibleInTranscriptOnly": True,
        "message": {"role": "user", "content": [{"type": "text", "text": SUMMARY}]},
    }  # fmt: skip
    return [boundary, summary]


def hook_input(compacted: Compacted, **override: Any) -> bytes:
    data = {
        "session_id": compacted.session_id,
        "transcript_path": str(compacted.transcript),
        "cwd": str(compacted.cwd),
        "hook_event_name": "SessionStart",
        "source": "compact",
        **override,
    }
    return json.dumps(data).encode()
