"""The agents beside us, one line each: the command line, the hook and the server know them from here alone."""

from __future__ import annotations

from compact_lsp.agents.agent import AgentBeside
from compact_lsp.agents.claude_code.agent import CLAUDE_CODE
from compact_lsp.agents.codex.agent import CODEX
from compact_lsp.agents.gemini_cli.agent import GEMINI_CLI
from compact_lsp.agents.qwen_code.agent import QWEN_CODE

AGENTS: list[AgentBeside] = [CLAUDE_CODE, CODEX, QWEN_CODE, GEMINI_CLI]
"""Registered agents, in the order they are offered."""


def agent_named(name: str) -> AgentBeside | None:
    return next((agent for agent in AGENTS if agent.name == name), None)
