"""The agents beside us, one line each: the command line, the hook and the server know them from here alone."""

from __future__ import annotations

from compact_lsp.agents.agent import AgentBeside
from compact_lsp.agents.claude_code.agent import CLAUDE_CODE
from compact_lsp.agents.codex.agent import CODEX
from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.qwen_code.agent import QWEN_CODE

AGENTS: list[AgentBeside] = [CLAUDE_CODE, CODEX, QWEN_CODE, GEMINI_CLI]
"""Registered agents, in the order they are offered."""
UNMARKED_LOGS: AgentBeside = CLAUDE_CODE
"""Whose log a file is when no registered agent recognises it: Claude Code's logs have no mark of their own."""


def agent_named(name: str) -> AgentBeside | None:
    return next((agent for agent in AGENTS if agent.name == name), None)


def log_owner(path: str) -> AgentBeside:
    """The agent whose log the file at ``path`` is (``compact-lsp inspect`` and ``import``)."""
    return next((agent for agent in AGENTS if agent.recognises(path)), UNMARKED_LOGS)


def copied_from(session_id: str, source: str | None) -> AgentBeside | None:
    """The agent whose log an imported copy is (by its id's ``copy_prefix``); None for any other session."""
    if source != "import":
        return None
    return next((agent for agent in AGENTS if session_id.startswith(agent.copy_prefix)), None)
