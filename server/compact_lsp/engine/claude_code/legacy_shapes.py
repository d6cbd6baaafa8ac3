"""Older transcript shapes, read as today's: Claude Code 1.0.x's inline sub-agents and compactions.

- **Inline sub-agents.** Claude Code 1.0.x wrote a ``Task`` sub-agent's conversation into the session's own log,
  each record ``isSidechain: true``, its chain starting at a record with no parent (the task's prompt); later
  versions write it to ``agent-<id>.jsonl`` beside the log. ``split_sidechains`` takes each such chain out, in file
  order, so it is imported as a conversation of its own (a sub-agent), not dropped as another branch of the main one.
- **Compactions without a boundary.** 1.0.x wrote no ``compact_boundary`` record: a compaction is only the summary,
  a user record whose text begins "This session is being continued from a previous conversation" (later marked
  ``isCompactSummary``) with no parent, so following parents from the last response stops there and everything
  before it is lost. ``with_legacy_boundaries`` puts before each such summary the boundary a later version would
  have written (no parent, its ``logicalParentUuid`` the last main-chain message before it, the summary's parent
  the boundary), so the importer reads the compaction as it reads today's.

Both are pure passes over the parsed records; the records of today's logs come back unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from compact_lsp.engine.claude_code.log_lines import LogRecord, is_boundary
from compact_lsp.engine.conversation.messages import blocks_of

LEGACY_SUMMARY_PREFIX = "This session is being continued from a previous conversation"
"""How a compaction's summary begins (1.0.x and later alike)."""
LEGACY_TRIGGER = "legacy"
"""``compactMetadata.trigger`` of a boundary put in for a 1.0.x compaction."""


def _is_sidechain(record: LogRecord) -> bool:
    return record.data.get("isSidechain") is True


def split_sidechains(records: list[LogRecord]) -> tuple[list[LogRecord], list[list[LogRecord]]]:
    """(the records without the inline sub-agents' message records, each inline sub-agent's message records in
    file order), the sub-agents in the order their chains start. A sidechain record whose parent is no sidechain
    record starts a chain of its own. A log of sidechain records alone is a sub-agent's own log: it stays whole."""
    kinds = {_is_sidechain(record) for record in records if record.message is not None}
    if kinds != {True, False}:
        return records, []
    root_of: dict[str, str] = {}
    chains: dict[str, list[LogRecord]] = {}
    main: list[LogRecord] = []
    for record in records:
        if record.message is None or not _is_sidechain(record):
            main.append(record)
            continue
        parent = record.data.get("parentUuid")
        root = root_of.get(parent) if isinstance(parent, str) else None
        uuid = record.uuid or f"line-{record.line_no}"
        root = root or uuid
        root_of[uuid] = root
        chains.setdefault(root, []).append(record)
    return main, list(chains.values())


def _legacy_summary(record: LogRecord) -> bool:
    """A 1.0.x compaction's summary: a main-chain user record with no parent that says it continues a
    conversation (or is marked as a compaction's summary)."""
    if record.message is None or record.message["role"] != "user" or record.is_attachment or _is_sidechain(record):
        return False
    if record.data.get("parentUuid") is not None or record.data.get("logicalParentUuid") is not None:
        return False
    if record.data.get("isCompactSummary") is True:
        return True
    text = next((str(b.get("text", "")) for b in blocks_of(record.message) if b.get("type") == "text"), "")
    return text.lstrip().startswith(LEGACY_SUMMARY_PREFIX)


def with_legacy_boundaries(records: list[LogRecord]) -> tuple[list[LogRecord], int]:
    """The records with a boundary put before each 1.0.x compaction summary that has none, and how many were put
    in. A summary with nothing before it on the main chain (a log that starts with one) is left alone."""
    out: list[LogRecord] = []
    previous: str | None = None  # the last main-chain message record's uuid so far
    added = 0
    for record in records:
        if record.message is None and is_boundary(record):
            previous = None  # a real boundary: what follows is today's shape
        elif _legacy_summary(record) and previous is not None:
            boundary_uuid = f"legacy-boundary-{record.line_no}"
            boundary = LogRecord(
                record.line_no,
                {"type": "system", "subtype": "compact_boundary", "uuid": boundary_uuid, "parentUuid": None,
                 "logicalParentUuid": previous, "sessionId": record.data.get("sessionId"),
                 "timestamp": record.data.get("timestamp"), "compactMetadata": {"trigger": LEGACY_TRIGGER}},
            )  # fmt: skip
            out.append(boundary)
            record = replace(record, data={**record.data, "parentUuid": boundary_uuid, "isCompactSummary": True})
            added += 1
        if record.message is not None and not _is_sidechain(record) and record.uuid is not None:
            previous = record.uuid
        out.append(record)
    return out, added
