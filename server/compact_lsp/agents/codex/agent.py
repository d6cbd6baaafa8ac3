"""Codex CLI as an agent beside us (agents/agent.py): its hook, its config.toml, its rollouts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import AgentRoom, FollowedFolder, MakeSession

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.codex.live import FollowedCodexSession
    from compact_lsp.agents.settings_files import HookChange
    from compact_lsp.engine.conversation.messages import Message
    from compact_lsp.engine.files.working_set import WorkingSet

LEVELS_TO_WAIT = 2
"""Codex makes ``$CODEX_HOME/sessions`` (and ``~/.codex`` itself) on its first run: until then the nearest of
those folders' parents is watched for it (not recursively); its day folders, made each day, are under the
recursive watch of ``sessions``."""


class Codex(AgentRoom):
    room = "compact_lsp.agents.codex"
    settings_at = "live:CodexSettings"
    name = "codex"
    owner = "Codex"
    copy_prefix = "cx-"
    after_install = ", then trust it in Codex (/hooks)"
    settings_words = "Codex's config.toml"
    scope_help: Mapping[str, str] = (
        {"project": "this project's .codex/config.toml (default; read in trusted projects)",
         "user": "$CODEX_HOME/config.toml (~/.codex/config.toml)"}
    )  # fmt: skip

    def settings_path(self, scope: str, project_dir: str) -> Path:
        from compact_lsp.agents.codex.config_places import config_path

        return config_path(scope, project_dir)

    def install_hook(self, path: Path, project_dir: str | None) -> HookChange:
        from compact_lsp.agents.codex.settings import install_hook

        return install_hook(path)

    def uninstall_hook(self, path: Path, project_dir: str | None) -> HookChange:
        from compact_lsp.agents.codex.settings import uninstall_hook

        return uninstall_hook(path)

    def installed_commands(self, path: Path) -> list[str]:
        from compact_lsp.agents.codex.settings import installed_commands

        return installed_commands(path)

    def imported_working_set(self, messages: list[Message], cwd: str) -> WorkingSet | None:
        from compact_lsp.engine.codex.working_set import codex_working_set

        return codex_working_set(messages, cwd)

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        from compact_lsp.agents.codex.live import rollouts_for, sessions_root

        root = sessions_root(settings.home)
        others: set[str] = set()
        """Rollouts of other projects (looked at once)."""

        def wanted(path: str) -> bool:
            name = os.path.basename(path)
            return name.startswith("rollout-") and name.endswith(".jsonl") and path not in others

        def open_rollout(path: Path, make_session: MakeSession) -> FollowedCodexSession | None:
            from compact_lsp.agents.codex.live import FollowedCodexSession, ownership

            mine = ownership(path, workspace_root) if path.is_file() else False
            if mine is False:
                others.add(str(path))
            if not mine:
                return None  # another project's, or its first line is not written yet: the next write tells
            return FollowedCodexSession(path, make_session)

        return FollowedFolder(
            root, recursive=True, levels_to_wait=LEVELS_TO_WAIT, wanted=wanted,
            newest=lambda limit: rollouts_for(root, workspace_root, limit), open=open_rollout,
        )  # fmt: skip


CODEX = Codex()
