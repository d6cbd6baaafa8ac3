"""What ``compact-lsp inspect`` reads of an agent's log other than a Claude Code session (a Codex rollout, a Qwen
Code transcript, a Gemini CLI session file): the window its model holds now (since its last compaction), and the
facts its log tells. cli/offline.py measures it and prints the report; a Claude Code session it imports whole."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compact_lsp.agents.codex.agent import CODEX
from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.gemini_cli.chat_log import GeminiChat, is_gemini_session
from compact_lsp.agents.gemini_cli.chat_log import read_chat as read_gemini
from compact_lsp.agents.qwen_code.agent import QWEN_CODE
from compact_lsp.agents.qwen_code.chat_log import QwenChat, is_qwen_chat, read_chat
from compact_lsp.engine.codex.rollout import is_rollout, read_rollout
from compact_lsp.engine.conversation.messages import Message

LOGS_READ = "Claude Code, Codex or Qwen Code sessions (.jsonl) or Gemini CLI session files (.json)"
"""The logs ``inspect`` and ``import`` read (agents/importing.py reads the same), for ``--help``."""


@dataclass(frozen=True)
class AgentWindow:
    """An agent's log read as the window its model holds now."""

    agent: str
    """The agent's name (``codex``)."""
    session_id: str
    title: str
    cwd: str | None
    model: str | None
    messages: list[Message]
    usage: dict[str, Any] | None
    """The usage the agent's API last reported."""
    window: int | None
    """The context window its log names (None: not told)."""
    facts: dict[str, Any]
    """What the report says beside the usage, under its keys (``assistantTurns``, ``compaction``...)."""


def agent_window(path: str) -> AgentWindow | None:
    """The log at ``path`` as the window its agent's model holds now; None: not one of these agents' logs."""
    if is_gemini_session(path):
        return _gemini(path)
    if is_qwen_chat(path):
        return _qwen(path)
    if is_rollout(path):
        return _codex(path)
    return None


def _problems(bad_lines: int) -> list[str]:
    return [f"{bad_lines} line(s) could not be read"] if bad_lines else []


def _codex(path: str) -> AgentWindow:
    rollout = read_rollout(path, developer=True)  # the model holds its developer items: counted
    last = rollout.last_compaction
    return AgentWindow(
        CODEX.name, rollout.session_id or Path(path).stem, rollout.title or "", rollout.cwd, rollout.model,
        rollout.current_context(), rollout.usage, rollout.context_window,
        facts={
            "assistantTurns": sum(1 for m in rollout.messages if m["role"] == "assistant"),
            "problems": _problems(rollout.bad_lines),
            "skippedRecords": dict(rollout.skipped),
            "historyMessages": last.index if last else 0,
            "compaction": None if last is None else {"compactions": len(rollout.compactions)},
        },
    )  # fmt: skip


def _qwen(path: str) -> AgentWindow:
    chat = read_chat(path)
    last = chat.compactions[-1] if chat.compactions else None
    return _chat_window(QWEN_CODE.name, path, chat, None if last is None else {
        "compactions": len(chat.compactions), "trigger": last.trigger, "preTokens": last.tokens_before,
        "postTokens": last.tokens_after,
    })  # fmt: skip


def _gemini(path: str) -> AgentWindow:
    chat = read_gemini(path)
    return _chat_window(
        GEMINI_CLI.name, path, chat, {"compactions": len(chat.compressions)} if chat.compressions else None
    )


def _chat_window(agent: str, path: str, chat: QwenChat | GeminiChat, compaction: dict[str, Any] | None) -> AgentWindow:
    """A Qwen Code or Gemini CLI chat (their logs tell the same facts), with the report's ``compaction``."""
    return AgentWindow(
        agent, chat.session_id or Path(path).stem, chat.title or "", chat.cwd, chat.model, chat.messages, chat.usage,
        chat.context_window,
        facts={
            "assistantTurns": chat.assistant_turns,
            "problems": _problems(chat.bad_lines),
            "skippedRecords": dict(chat.skipped),
            "compaction": compaction,
        },
    )  # fmt: skip
