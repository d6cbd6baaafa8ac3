"""The tools the engine knows by name by default, in both naming styles (Qwen/Gemini-style and Claude Code-style).

Their own module, below the settings that default to them, so that the read-file state and the artifact trail (the
hooks' path) name them without importing every settings class.
"""

from __future__ import annotations

DEFAULT_COMPACTABLE_TOOLS: tuple[str, ...] = (
    # file read
    "read_file", "Read", "read_many_files",
    # search
    "grep", "Grep", "search_file_content", "glob", "Glob", "list_directory", "LS",
    # shell
    "run_shell_command", "Bash", "shell",
    # web
    "web_fetch", "WebFetch", "web_search", "WebSearch", "google_web_search",
    # edits and writes
    "edit", "Edit", "edit_file", "replace", "MultiEdit", "write_file", "Write", "NotebookEdit",
)  # fmt: skip
"""Tools whose old results may be cleared, in both naming styles (Qwen/Gemini-style and Claude Code-style)."""

DEFAULT_READ_TOOLS: tuple[str, ...] = ("read_file", "Read")
DEFAULT_WRITE_TOOLS: tuple[str, ...] = ("write_file", "Write")
DEFAULT_EDIT_TOOLS: tuple[str, ...] = ("edit", "Edit", "edit_file", "replace", "MultiEdit")
