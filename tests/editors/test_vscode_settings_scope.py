"""A repository's .vscode/settings.json cannot widen what the server reads or where the API key goes.

VS Code ignores a setting with scope "machine" (or "application") in workspace and folder settings: only the
user's own settings count. These settings would otherwise let a cloned repository open folders outside it to the
agent's tools and rehydration (the project, user and team memory roots, additional directories), send the API key to a
server of its choosing (the Messages API base URL), or run a program of its choosing (the server's command or
Python, the pre-compaction command), or put the session journals, which hold the conversation and the files' contents,
inside the repository (the session directory).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "editors" / "vscode" / "package.json"

USER_ONLY = ["compactLsp.memory.projectRoot", "compactLsp.memory.userRoot", "compactLsp.memory.teamRoot",
             "compactLsp.additionalDirectories",
             "compactLsp.baseUrl", "compactLsp.server.command", "compactLsp.server.pythonPath",
             "compactLsp.preCompactCommand", "compactLsp.sessionDir"]  # fmt: skip


def _settings() -> dict[str, dict[str, object]]:
    contributed = json.loads(PACKAGE.read_text(encoding="utf-8"))["contributes"]["configuration"]
    sections = contributed if isinstance(contributed, list) else [contributed]
    return {key: value for section in sections for key, value in section["properties"].items()}


@pytest.mark.parametrize("key", USER_ONLY)
def test_settings_that_widen_access_are_user_only(key: str) -> None:
    assert _settings()[key].get("scope") in {"machine", "application"}
