"""Codex's rollouts read whole for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the window its
model holds now, its developer items with it (the model holds them: counted), and the files it read with its shell
(an imported copy's reads)."""

from __future__ import annotations

from collections.abc import Iterable

from compact_lsp.agents.agent_log import AgentLog, CompactionFigures, ShellRead, window_log
from compact_lsp.agents.codex.agent import CODEX
from compact_lsp.engine.codex.file_uses import shell_reads
from compact_lsp.engine.codex.recorded_compactions import recorded_codex_compactions
from compact_lsp.engine.codex.rollout import is_rollout, read_records, read_rollout
from compact_lsp.engine.conversation.messages import Message


def recognises(path: str) -> bool:
    return is_rollout(path)


def read_log(path: str) -> AgentLog:
    rollout = read_rollout(path, developer=True)  # what the model held: its instructions, our hook's files
    last = rollout.last_compaction
    cwd = rollout.cwd or ""

    def reads(messages: list[Message]) -> Iterable[ShellRead]:
        return shell_reads(messages, cwd)

    return window_log(
        CODEX.name, path, rollout, rollout.current_context(),
        assistant_turns=sum(1 for m in rollout.messages if m["role"] == "assistant"),
        history=last.index if last else 0,
        compaction=None if last is None else {"compactions": len(rollout.compactions)}, shell_reads=reads,
        last_compaction=None if last is None else _last_compaction(path),
    )  # fmt: skip


def _last_compaction(path: str) -> CompactionFigures | None:
    """The figures and trigger of Codex's last compaction, as its followed chat reads them (codex/chat.py)."""
    rows = recorded_codex_compactions(read_records(path))
    return CompactionFigures(rows[-1].trigger, rows[-1].tokens_before, rows[-1].tokens_after) if rows else None
