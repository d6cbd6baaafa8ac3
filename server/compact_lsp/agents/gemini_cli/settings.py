"""Our ``BeforeModel`` hook in Gemini CLI's ``settings.json``.

Gemini CLI 0.61.0 reads hooks from ``~/.gemini/settings.json`` (the user) and the project's
``.gemini/settings.json`` (in a trusted folder). Ours is ``hooks.BeforeModel: [{"hooks": [{"type": "command",
"command": ...}]}]``: no matcher (every model request), no timeout (Gemini's 60 s applies; the hook bounds itself).
The merge, its backup and its byte-identical round trip are the shared JSON settings file's
(agents/json_settings.py).
"""

from __future__ import annotations

from compact_lsp.agents.json_settings import JsonHookFile

SETTINGS = JsonHookFile(
    agent="gemini-cli", owner="Gemini CLI", folder=".gemini", project_file="settings.json", event="BeforeModel",
    matcher=None,
)  # fmt: skip
