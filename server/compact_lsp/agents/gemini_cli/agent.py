"""Gemini CLI as an agent beside us (agents/agent.py): its ``BeforeModel`` hook and its settings.json. Following
its sessions in the editors is not built yet (docs/gemini-cli.md).

Its hook runs before every model request, so the description answers a request with nothing compressed in it
(no ``COMPRESSION_ACK``) itself, by a byte search, before the hook's modules are imported; a request after a
compression whose block is remembered (request.py) is answered without the engine (docs/gemini-cli.md has the cost
per request).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.agent import JsonSettingsRoom
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.not_for_us import NotForUs

if TYPE_CHECKING:
    from compact_lsp.agents.agent import FollowedFolder
    from compact_lsp.agents.hook_io import HookInput


class GeminiCli(JsonSettingsRoom):
    room = "compact_lsp.agents.gemini_cli"
    name = "gemini-cli"
    owner = "Gemini CLI"
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
        return build_answer(needed, figures, budget=ours, asked=budget, keep=keep)

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        # Gemini CLI has no event after its compression: its hook answers each request (hook_answer)
        return None, {"reason": "Gemini CLI's hook is BeforeModel"}

    settings_class = None

    def follows(self, settings: Any) -> bool | None:
        return False

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        return None


GEMINI_CLI = GeminiCli()
