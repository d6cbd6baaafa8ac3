"""Gemini CLI's session files read whole for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the
window its model holds now (chat_log.py), with how often it compressed."""

from __future__ import annotations

from pathlib import Path

from compact_lsp.agents.agent_log import AgentLog, CompactionFigures, window_log
from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.gemini_cli.chat import gemini_cli_chat_entries
from compact_lsp.agents.gemini_cli.chat_log import is_gemini_session, read_chat


def recognises(path: str) -> bool:
    return is_gemini_session(path)


def read_log(path: str) -> AgentLog:
    chat = read_chat(path)
    compaction = {"compactions": len(chat.compressions)} if chat.compressions else None
    return window_log(
        GEMINI_CLI.name,
        path,
        chat,
        chat.messages,
        assistant_turns=chat.assistant_turns,
        compaction=compaction,
        last_compaction=_last_compaction(path) if chat.compressions else None,
    )


def _last_compaction(path: str) -> CompactionFigures | None:
    """The trigger and figures of Gemini's last compression, as its followed chat derives them (chat.py)."""
    markers = [e for e in gemini_cli_chat_entries(Path(path)) if e["kind"] == "compaction"]
    if not markers:
        return None
    return CompactionFigures(markers[-1]["trigger"], markers[-1]["tokensBefore"], markers[-1]["tokensAfter"])
