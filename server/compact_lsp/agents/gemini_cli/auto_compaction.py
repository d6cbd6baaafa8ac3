"""Gemini CLI's automatic compression as configured (0.61.0, read in its bundle and measured, docs/gemini-cli.md):

- it compresses at the start of a new user turn when the last reported prompt is at least
  ``model.compressionThreshold`` (a share, 0.5 unless set) of the model's window;
- the window (``tokenLimit``) is 1,048,576 tokens for the Gemini models and 256,000 for Gemma 4;
- settings are the project's ``.gemini/settings.json`` over the user's ``~/.gemini/settings.json``.
"""

from __future__ import annotations

from pathlib import Path

from compact_lsp.agents.agent_config import home, json_object, read_config
from compact_lsp.engine.conversation.next_compaction import AutoCompaction

DEFAULT_THRESHOLD = 0.5
GEMINI_WINDOW = 1_048_576
GEMMA_4_WINDOW = 256_000


def token_limit(model: str | None) -> int:
    """The window Gemini CLI compresses against, for ``model``."""
    return GEMMA_4_WINDOW if model and model.startswith("gemma-4") else GEMINI_WINDOW


def _threshold(path: Path) -> float | None:
    data = read_config(path, json_object)
    model = data.get("model") if isinstance(data, dict) else None
    value = model.get("compressionThreshold") if isinstance(model, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _gemini_home(transcript: Path | None) -> Path:
    """The ``.gemini`` the session file is in (``<.gemini>/tmp/<project>/chats/session-….jsonl``), else ~'s."""
    if transcript is not None and len(transcript.parents) > 3 and transcript.parents[2].name == "tmp":
        return transcript.parents[3]
    return home() / ".gemini"


def gemini_auto_compaction(model: str | None, workspace: str | None, transcript: Path | None) -> AutoCompaction:
    """Gemini CLI's threshold for ``model`` where the session runs."""
    window = token_limit(model)
    places = [(_gemini_home(transcript) / "settings.json", "~/.gemini/settings.json")]
    if workspace:
        places.insert(0, (Path(workspace) / ".gemini" / "settings.json", ".gemini/settings.json"))
    for path, named in places:
        share = _threshold(path)
        if share is None:
            continue
        where = f"model.compressionThreshold {share:g} in {named}"
        if share > 1:
            return AutoCompaction(None, "Gemini CLI", f"{where}: past the window, so Gemini never compresses by itself")
        return AutoCompaction(int(max(share, 0) * window), f"{where} ({share:g} of {window:,})")
    return AutoCompaction(int(DEFAULT_THRESHOLD * window), f"Gemini CLI's default: half of the model's {window:,}")
