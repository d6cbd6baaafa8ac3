"""A followed Claude Code session's whole conversation for its chat (``compact/transcript``), and its compactions
for the timeline (``compact/timeline``: each ``compact_boundary``, the summary, the files Claude Code re-attached,
and what a ``SessionStart`` hook's context became there, a receipt). The chat is the branch the user is on, across
every compaction boundary, each boundary a marker with the figures and trigger its ``compactMetadata`` recorded
(engine/claude_code/recorded_compactions.py). The follower holds what the model holds now (since the last boundary);
the user's chat keeps what came before. The summary after a boundary is the marker's, never the user's words; the
user's ``/compact``, which Claude Code writes after its boundary and summary, comes before its marker, where it was
typed. Read from the transcript as the timeline reads it; nothing is written.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from compact_lsp.agents.claude_code.shown import classify
from compact_lsp.agents.claude_code.transcript_window import MAX_TRANSCRIPT_BYTES
from compact_lsp.agents.followed_window import AgentCompaction
from compact_lsp.agents.shown_blocks import CommandOutput, Dropped, SlashCommand, agent_marker
from compact_lsp.engine.claude_code.branch import merge_records, select_branch
from compact_lsp.engine.claude_code.log_lines import LogRecord, is_boundary, parse_log_lines
from compact_lsp.engine.claude_code.recorded_compactions import RecordedCompaction, recorded_compactions
from compact_lsp.engine.files.file_gate import open_regular


def _records(path: Path) -> list[LogRecord]:
    with open_regular(str(path), max_bytes=MAX_TRANSCRIPT_BYTES) as f:
        data = f.read()
    records, _problems = parse_log_lines(data, lean=True)
    return records


def claude_code_compactions(path: Path) -> list[AgentCompaction]:
    """Claude Code's compactions in the transcript at ``path``, with the figures it recorded (the module doc)."""
    return [
        AgentCompaction(row.at, row.trigger, row.tokens_before, row.tokens_after, row.summary,
                        reattached=row.reattached, receipts=row.receipts)
        for row in recorded_compactions(_records(path))
    ]  # fmt: skip


def claude_code_chat_entries(path: Path) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of the transcript at ``path`` before ``shown_entries`` (see the module doc)."""
    records = _records(path)
    boundaries = [r for r in records if r.message is None and is_boundary(r)]
    figures = recorded_compactions(records)
    shown = [r for r in select_branch(records, Counter()) if r.data.get("isCompactSummary") is not True]
    entries: list[dict[str, Any]] = []
    start = 0
    for boundary, row in [*zip(boundaries, figures, strict=False), (None, None)]:
        end = len(shown) if boundary is None else next(
            (i for i in range(start, len(shown)) if shown[i].line_no > boundary.line_no), len(shown)
        )  # fmt: skip
        _messages(shown[start:end], entries)
        start = end
        if row is not None:
            if row.trigger == "manual":  # the user's /compact, written after its boundary: shown where it was typed
                start = _typed_compact(shown, end)
                _messages(shown[end:start], entries)
            entries.append(_marker(len(entries), row))
    return entries


def _typed_compact(records: list[LogRecord], start: int) -> int:
    """Where the user's ``/compact`` ends (its caveat, its line, its "Compacted") when it comes first at ``start``,
    right after its boundary; ``start`` when it does not."""
    at, typed = start, False
    while at < len(records):
        found = classify(_text(records[at]) or "")
        if isinstance(found, SlashCommand) and found.line.split(" ")[0] == "/compact":
            typed = True
        elif not isinstance(found, (Dropped, CommandOutput)):
            break
        at += 1
    return at if typed else start


def _text(record: LogRecord) -> str | None:
    message = record.message
    content = message.get("content") if message is not None and message.get("role") == "user" else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text")
    return content if isinstance(content, str) else None


def _messages(records: list[LogRecord], entries: list[dict[str, Any]]) -> None:
    messages, stamps, _sources = merge_records(records)
    entries.extend({"kind": "message", "at": at, "message": m} for m, at in zip(messages, stamps, strict=True))


def _marker(position: int, row: RecordedCompaction) -> dict[str, Any]:
    return agent_marker(position, row.at, row.trigger, row.tokens_before, row.tokens_after, row.summary)
