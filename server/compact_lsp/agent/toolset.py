"""The agent's default tool set: the reading tools (reading.py) and the writing ones (writing.py)."""

from __future__ import annotations

from compact_lsp.agent.reading import glob_tool, grep_tool, list_directory_tool, read_file_tool
from compact_lsp.agent.tools import Tool
from compact_lsp.agent.writing import edit_file_tool, remember_tool, shell_tool, write_file_tool


def default_tools(*, shell: bool = False, ripgrep: str | None = None) -> list[Tool]:
    """The agent's tool set; the shell tool only when enabled in the settings."""
    tools = [
        read_file_tool(),
        list_directory_tool(),
        glob_tool(),
        grep_tool(ripgrep),
        edit_file_tool(),
        write_file_tool(),
        remember_tool(),
    ]
    if shell:
        tools.append(shell_tool())
    return tools
