"""Where Codex CLI reads its ``config.toml``: light, for the hook (which must not import tomlkit to find it)."""

from __future__ import annotations

import os
from pathlib import Path


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex"))


def config_path(scope: str, project_dir: str) -> Path:
    """``user``: ``$CODEX_HOME/config.toml``; ``project``: the project's ``.codex/config.toml``."""
    if scope == "user":
        return codex_home() / "config.toml"
    return Path(project_dir) / ".codex" / "config.toml"
