"""Claude Code's session logs read whole for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the
importer's conversation (engine/claude_code/, sub-agents and 1.0.x shapes included) with the facts the report says.

A Claude Code log has no mark of its own that a first line would tell: a log no registered agent recognises is read
as one (agents/registered.py ``UNMARKED_LOGS``), and the importer says what it could not read.
"""

from __future__ import annotations

from typing import Any

from compact_lsp.agents.agent_log import AgentLog, CompactionFigures
from compact_lsp.engine.claude_code.transcript_log import import_claude_code


def recognises(path: str) -> bool:
    """Never by a mark (see the module doc)."""
    return False


def read_log(path: str) -> AgentLog:
    imported = import_claude_code(path)
    session = imported.session
    problems = [f"line {p.line_no}: {p.reason}" for p in imported.problems]
    return AgentLog(
        session.id, session.title, imported.cwd, session.messages, problems,
        facts={
            "assistantTurns": sum(1 for m in session.messages if m["role"] == "assistant"),
            "problems": problems, "repairs": list(imported.repairs), "model": imported.model,
            "skippedRecords": imported.skipped_records, "historyMessages": len(imported.history),
            "subagents": len(imported.subagents), "inlineSubagents": sum(1 for s in imported.subagents if s.inline),
            "legacyCompactions": imported.legacy_compactions, "compaction": _compaction_figures(imported.compaction),
        },
        window=imported.context_window, attachment_texts=imported.attachment_texts, repairs=list(imported.repairs),
        last_compaction=_last_compaction(imported.compaction),
    )  # fmt: skip


def _compaction_figures(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """Claude Code's own figures for its last compaction."""
    if meta is None:
        return None
    return {k: meta.get(k) for k in ("trigger", "preTokens", "postTokens") if k in meta}


def _last_compaction(meta: dict[str, Any] | None) -> CompactionFigures | None:
    """The last boundary's ``compactMetadata`` as the followed chat's marker shows it (recorded_compactions.py);
    None: no compaction, or a 1.0.x one (a summary without a boundary: nothing recorded)."""
    if meta is None or meta.get("trigger") == "legacy":
        return None
    return CompactionFigures("manual" if meta.get("trigger") == "manual" else "auto", _count(meta.get("preTokens")),
                             _count(meta.get("postTokens")))  # fmt: skip


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
