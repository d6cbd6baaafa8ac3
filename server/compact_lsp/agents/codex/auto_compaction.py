"""Codex's automatic compaction as configured (measured on the real CLI, 0.171.0, docs/codex.md):

- ``model_auto_compact_token_limit`` in ``$CODEX_HOME/config.toml`` (or a trusted project's ``.codex/config.toml``)
  is the threshold, compared with the last response's total tokens;
- unset, Codex compacts at 90% of the model's full window; it reports 95% of that window as
  ``model_context_window`` (258,400 for ``gpt-5.5``, whose window is 272,000): it compacted at a reported total of
  244,780 and not at 244,760, where 90% of 272,000 is 244,800;
- a limit at or past the window turns it off in effect: the session runs into the window's end first."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from compact_lsp.agents.agent_config import home, read_config, toml_table
from compact_lsp.engine.conversation.next_compaction import AutoCompaction

LIMIT_KEY = "model_auto_compact_token_limit"


def _limit(path: Path) -> int | None:
    table = read_config(path, toml_table)
    value = table.get(LIMIT_KEY) if isinstance(table, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _codex_home(transcript: Path | None, env: Mapping[str, str]) -> Path:
    """The home the rollout is in (``<home>/sessions/YYYY/MM/DD/rollout-….jsonl``), else ``$CODEX_HOME``."""
    if transcript is not None and len(transcript.parents) > 4 and transcript.parents[3].name == "sessions":
        return transcript.parents[4]
    return Path(env.get("CODEX_HOME") or os.path.join(home(), ".codex"))


def codex_auto_compaction(
    window: int | None, workspace: str | None, transcript: Path | None, env: Mapping[str, str]
) -> AutoCompaction | None:
    """Codex's threshold for a model whose reported window is ``window``."""
    codex_home = _codex_home(transcript, env)
    places = [
        (codex_home / "config.toml", "~/.codex/config.toml" if "CODEX_HOME" not in env else "$CODEX_HOME/config.toml")
    ]
    if workspace:
        places.insert(0, (Path(workspace) / ".codex" / "config.toml", ".codex/config.toml"))
    for path, named in places:
        limit = _limit(path)
        if limit is None:
            continue
        where = f"{LIMIT_KEY} = {limit:,} in {named}"
        if limit <= 0 or (window and limit >= window):
            return AutoCompaction(None, "Codex", f"{where}: at or past the window, so Codex never compacts by itself")
        return AutoCompaction(limit, where)
    if not window:
        return None
    return AutoCompaction(round(window / 0.95) * 9 // 10, "Codex's default: 90% of the model's window")
