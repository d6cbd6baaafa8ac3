"""Qwen Code as an agent beside us (agents/agent.py): its hook, its settings.json, its transcripts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import JsonSettingsRoom

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.agent import Followed, FollowedFolder, MakeSession
    from compact_lsp.agents.hook_io import HookInput


class QwenCode(JsonSettingsRoom):
    room = "compact_lsp.agents.qwen_code"
    name = "qwen-code"
    owner = "Qwen Code"
    copy_prefix = "qw-"
    after_install = ""
    hook_sources = ("compact", "resume")
    """After its compaction, and when a session compacted before is resumed (hook.py)."""
    settings_words = "Qwen Code's settings.json"
    scope_help: Mapping[str, str] = (
        {"project": "this project's .qwen/settings.json (the default)", "user": "~/.qwen/settings.json"}
    )  # fmt: skip

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        from compact_lsp.agents.character_fit import DEFAULT_BUDGET
        from compact_lsp.agents.qwen_code.hook import QWEN_BUDGET, context_for

        # the hook's shared default is Claude Code's 10,000-character limit; Qwen's budget is ours (hook.py)
        return context_for(inp, budget=QWEN_BUDGET if budget == DEFAULT_BUDGET else budget, keep=keep)

    @property
    def settings_class(self) -> type:
        from compact_lsp.agents.qwen_code.live import QwenCodeSettings

        return QwenCodeSettings

    def follows(self, settings: Any) -> bool | None:
        follow: bool | None = settings.follow
        return follow

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        from compact_lsp.agents.agent import FollowedFolder
        from compact_lsp.agents.qwen_code.live import LEVELS_TO_WAIT, chats_folder, transcripts_in

        folder = chats_folder(settings.home, workspace_root)

        def wanted(path: str) -> bool:
            return path.endswith(".jsonl") and os.path.dirname(path) == str(folder)

        def open_transcript(path: Path, make_session: MakeSession) -> Followed | None:
            from compact_lsp.agents.qwen_code.live import FollowedQwenSession, belongs_to

            if not path.is_file() or not belongs_to(path, workspace_root):
                return None
            return FollowedQwenSession(path, make_session)

        return FollowedFolder(
            folder, recursive=False, levels_to_wait=LEVELS_TO_WAIT, wanted=wanted,
            newest=lambda limit: transcripts_in(folder)[:limit], open=open_transcript,
        )  # fmt: skip


QWEN_CODE = QwenCode()
