"""Gemini CLI's session files read whole for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the
window its model holds now (chat_log.py), with how often it compressed."""

from __future__ import annotations

from compact_lsp.agents.agent_log import AgentLog, window_log
from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.gemini_cli.chat_log import is_gemini_session, read_chat


def recognises(path: str) -> bool:
    return is_gemini_session(path)


def read_log(path: str) -> AgentLog:
    chat = read_chat(path)
    compaction = {"compactions": len(chat.compressions)} if chat.compressions else None
    return window_log(
        GEMINI_CLI.name, path, chat, chat.messages, assistant_turns=chat.assistant_turns, compaction=compaction
    )
