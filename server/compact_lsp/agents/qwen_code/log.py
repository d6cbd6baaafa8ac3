"""Qwen Code's transcripts read whole for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py): the window
its model holds now (chat_log.py), with its last compaction's figures."""

from __future__ import annotations

from compact_lsp.agents.agent_log import AgentLog, CompactionFigures, window_log
from compact_lsp.agents.qwen_code.agent import QWEN_CODE
from compact_lsp.agents.qwen_code.chat_log import is_qwen_chat, read_chat


def recognises(path: str) -> bool:
    return is_qwen_chat(path)


def read_log(path: str) -> AgentLog:
    chat = read_chat(path)
    last = chat.compactions[-1] if chat.compactions else None
    return window_log(QWEN_CODE.name, path, chat, chat.messages, assistant_turns=chat.assistant_turns,
                      compaction=None if last is None else {
        "compactions": len(chat.compactions), "trigger": last.trigger, "preTokens": last.tokens_before,
        "postTokens": last.tokens_after,
    }, last_compaction=None if last is None else CompactionFigures(
        "manual" if last.trigger == "manual" else "auto", last.tokens_before, last.tokens_after))  # fmt: skip
