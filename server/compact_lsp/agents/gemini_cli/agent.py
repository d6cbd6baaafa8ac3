"""Gemini CLI as an agent beside us (agents/agent.py): its ``BeforeModel`` hook, its settings.json, its sessions
followed read-only (live.py).

Its hook runs before every model request, so the description answers a request with nothing compressed in it
(no ``COMPRESSION_ACK``) itself, by a byte search, before the hook's modules are imported; a request after a
compression whose block is remembered (request.py) is answered without the engine (docs/gemini-cli.md has the cost
per request).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import JsonSettingsRoom
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.not_for_us import NotForUs

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.agent import Followed, FollowedFolder, MakeSession
    from compact_lsp.agents.hook_io import HookInput


class GeminiCli(JsonSettingsRoom):
    room = "compact_lsp.agents.gemini_cli"
    name = "gemini-cli"
    owner = "Gemini CLI"
    copy_prefix = "gm-"
    after_install = ""
    settings_words = "Gemini CLI's settings.json"
    scope_help: Mapping[str, str] = (
        {"project": "this project's .gemini/settings.json (the default)", "user": "~/.gemini/settings.json"}
    )  # fmt: skip

    def hook_answer(
        self, raw: bytes, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        if COMPRESSION_ACK.encode() not in raw:
            raise NotForUs("no compression in the request")
        from compact_lsp.agents.gemini_cli.request import quick_answer

        answered, figures, needed = quick_answer(raw, budget)  # the block remembered: none of the engine imported
        if needed is None:
            return answered, figures
        from compact_lsp.agents.character_fit import DEFAULT_BUDGET
        from compact_lsp.agents.gemini_cli.hook import GEMINI_BUDGET, build_answer

        # the hook's shared default is Claude Code's 10,000-character limit; Gemini's budget is ours (hook.py)
        ours = GEMINI_BUDGET if budget == DEFAULT_BUDGET else budget
        return build_answer(needed, figures, budget=ours, keep=keep)

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        # Gemini CLI has no event after its compression: its hook answers each request (hook_answer)
        return None, {"reason": "Gemini CLI's hook is BeforeModel"}

    @property
    def settings_class(self) -> type:
        from compact_lsp.agents.gemini_cli.live import GeminiCliSettings

        return GeminiCliSettings

    def follows(self, settings: Any) -> bool | None:
        follow: bool | None = settings.follow
        return follow

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        from compact_lsp.agents.agent import FollowedFolder
        from compact_lsp.agents.gemini_cli.live import LEVELS_TO_WAIT, chats_folder, transcripts_in

        folder = chats_folder(settings.home, workspace_root)

        def wanted(path: str) -> bool:
            name = os.path.basename(path)
            return name.startswith("session-") and name.endswith(".jsonl") and os.path.dirname(path) == str(folder)

        return FollowedFolder(
            folder, recursive=False, levels_to_wait=LEVELS_TO_WAIT, wanted=wanted,
            newest=lambda limit: transcripts_in(folder)[:limit], open=_open,
        )  # fmt: skip


def _open(path: Path, make_session: MakeSession) -> Followed | None:
    from compact_lsp.agents.gemini_cli.live import FollowedGeminiSession

    return FollowedGeminiSession(path, make_session) if path.is_file() else None


GEMINI_CLI = GeminiCli()
