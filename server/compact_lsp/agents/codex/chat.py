"""A followed Codex session's whole conversation for its chat (``compact/transcript``), and its compactions for the
timeline (``compact/timeline``). The chat is every message as it happened, with a marker where each of Codex's
compactions fell, carrying the figures its rollout recorded (engine/codex/recorded_compactions.py). The follower
holds what the model holds now (since the last compaction); the user's chat keeps what came before. The summary
Codex's model wrote (a response marked ``compaction_output``) is the marker's summary, not an answer; the history
Codex kept (``replacement_history``) is the model's, never shown again. Read from the rollout as the timeline reads
it; nothing is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compact_lsp.agents.followed_window import AgentCompaction
from compact_lsp.agents.shown_blocks import agent_marker
from compact_lsp.engine.codex.recorded_compactions import CodexCompaction, recorded_codex_compactions
from compact_lsp.engine.codex.rollout import CodexRollout, RolloutBuilder, read_records


def _summary_output(record: dict[str, Any]) -> bool:
    metadata = record.get("metadata")
    return record["type"] == "response_item" and isinstance(metadata, dict) and bool(metadata.get("compaction_output"))


def codex_compactions(path: Path) -> list[AgentCompaction]:
    """Codex's compactions in the rollout at ``path``, with the figures and the history kept it recorded."""
    return [
        AgentCompaction(row.at, row.trigger, row.tokens_before, row.tokens_after, row.summary, kept=row.kept,
                        receipts=row.receipts)
        for row in recorded_codex_compactions(read_records(str(path)))
    ]  # fmt: skip


def codex_chat_entries(path: Path) -> list[dict[str, Any]]:
    """``compact/transcript`` entries of the rollout at ``path`` before ``shown_entries`` (see the module doc)."""
    records = read_records(str(path))
    rollout = CodexRollout(str(path))
    builder = RolloutBuilder(rollout)  # developer items are Codex's and hooks' text for the model: not shown
    for record in records:
        if not _summary_output(record):
            builder.add(record)
    builder.finish()
    figures = recorded_codex_compactions(records)
    entries: list[dict[str, Any]] = []
    marks = iter(zip(rollout.compactions, figures, strict=False))
    mark = next(marks, None)
    for index, message in enumerate([*rollout.messages, None]):
        while mark is not None and mark[0].index <= index:
            entries.append(_marker(len(entries), mark[1]))
            mark = next(marks, None)
        if message is not None:
            entries.append({"kind": "message", "at": None, "message": message})
    return entries


def _marker(position: int, row: CodexCompaction) -> dict[str, Any]:
    return agent_marker(position, row.at, row.trigger, row.tokens_before, row.tokens_after, row.summary)
