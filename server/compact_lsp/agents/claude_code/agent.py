"""Claude Code as an agent beside us (agents/agent.py): its hook, its settings file, its transcripts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import FollowedFolder, JsonSettingsRoom, MakeSession

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.claude_code.live import FollowedSession

LEVELS_TO_WAIT = 3
"""Claude Code makes the project directory on its first run there (and ``~/.claude`` itself on its first run at
all): until then the nearest of its projects folder, ``~/.claude`` and the home folder is watched for it."""


class ClaudeCode(JsonSettingsRoom):
    room = "compact_lsp.agents.claude_code"
    settings_at = "live:ClaudeCodeSettings"
    name = "claude-code"
    owner = "Claude Code"
    copy_prefix = "cc-"
    after_install = ""
    settings_words = "Claude Code's settings"
    scope_help: Mapping[str, str] = (
        {"project": "this project's .claude/settings.local.json (the default)", "user": "~/.claude/settings.json"}
    )  # fmt: skip

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        from compact_lsp.agents.claude_code.live import project_directory, transcripts_in

        directory = project_directory(settings.projects_dir, workspace_root)

        def wanted(path: str) -> bool:
            return path.endswith(".jsonl") and not os.path.basename(path).startswith("agent-")

        return FollowedFolder(
            directory, recursive=False, levels_to_wait=LEVELS_TO_WAIT, wanted=wanted,
            newest=lambda limit: transcripts_in(directory)[:limit], open=_open,
        )  # fmt: skip


def _open(path: Path, make_session: MakeSession) -> FollowedSession | None:
    from compact_lsp.agents.claude_code.live import FollowedSession
    from compact_lsp.agents.claude_code.transcript_window import LiveTranscript

    return FollowedSession(LiveTranscript(path), make_session) if path.is_file() else None


CLAUDE_CODE = ClaudeCode()
