"""Qwen Code as an agent beside us (agents/agent.py): its hook and its settings.json. Following its transcripts
in the editors is not built yet (docs/qwen-code.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import JsonSettingsRoom

if TYPE_CHECKING:
    from compact_lsp.agents.agent import FollowedFolder
    from compact_lsp.agents.hook_io import HookInput


class QwenCode(JsonSettingsRoom):
    room = "compact_lsp.agents.qwen_code"
    name = "qwen-code"
    owner = "Qwen Code"
    after_install = ""
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

    settings_class = None

    def follows(self, settings: Any) -> bool | None:
        return False

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        return None


QWEN_CODE = QwenCode()
