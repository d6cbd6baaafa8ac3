"""Qwen Code as an agent beside us (agents/agent.py): its hook and its settings.json. Following its transcripts
in the editors is not built yet (docs/qwen-code.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.agent import FollowedFolder
    from compact_lsp.agents.hook_io import HookInput
    from compact_lsp.agents.settings_files import HookChange


class QwenCode:
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

    def settings_path(self, scope: str, project_dir: str) -> Path:
        from compact_lsp.agents.qwen_code.settings import settings_path

        return settings_path(scope, project_dir)

    def install_hook(self, path: Path, project_dir: str | None) -> HookChange:
        from compact_lsp.agents.qwen_code.settings import install_hook

        return install_hook(path, project_dir=project_dir)

    def uninstall_hook(self, path: Path, project_dir: str | None) -> HookChange:
        from compact_lsp.agents.qwen_code.settings import uninstall_hook

        return uninstall_hook(path, project_dir=project_dir)

    def installed_commands(self, path: Path) -> list[str]:
        from compact_lsp.agents.qwen_code.settings import installed_commands

        return installed_commands(path)

    settings_class = None

    def follows(self, settings: Any) -> bool | None:
        return False

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        return None


QWEN_CODE = QwenCode()
