"""Claude Code's automatic compaction as configured (read in the 2.1.332 binary, checked on its transcripts):

- it fires at the effective window less 13,000 tokens; the effective window is the model's window less its
  output reserve (the smaller of its maximum output and 20,000): 167,000 at 200k, 967,000 at 1M;
- ``CLAUDE_CODE_AUTO_COMPACT_WINDOW`` lowers the window it counts with; ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` (1-100)
  lowers the threshold to that share of the effective window;
- ``DISABLE_COMPACT`` or ``DISABLE_AUTO_COMPACT`` (in the environment or a settings file's ``env``) or
  ``"autoCompactEnabled": false`` (``~/.claude.json`` or a settings file) turn it off without a word: the session
  then runs into the window's end.

We see the environment the editor started us with, which is the terminal's when the editor was started from it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from compact_lsp.agents.agent_config import home, json_object, read_config
from compact_lsp.engine.conversation.next_compaction import AutoCompaction

OUTPUT_RESERVE = 20_000
SUMMARY_BUFFER = 13_000
DISABLING = ("DISABLE_COMPACT", "DISABLE_AUTO_COMPACT")
TRUTHY = frozenset({"1", "true", "yes", "on"})


def _claude_dir(transcript: Path | None) -> Path:
    """``~/.claude``, or the folder above the projects folder the transcript is in (``<dir>/projects/<p>/<id>``)."""
    if transcript is not None and len(transcript.parents) > 2 and transcript.parents[1].name == "projects":
        return transcript.parents[2]
    return home() / ".claude"


def _settings_files(claude_dir: Path, workspace: str | None) -> list[tuple[Path, str]]:
    files = [(claude_dir / "settings.json", "~/.claude/settings.json")]
    if workspace:
        for name in ("settings.json", "settings.local.json"):
            files.append((Path(workspace) / ".claude" / name, f".claude/{name}"))
    return files


def _int(value: object) -> int | None:
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number > 0 else None


def claude_code_auto_compaction(
    window: int | None, workspace: str | None, transcript: Path | None, env: Mapping[str, str]
) -> AutoCompaction | None:
    """Claude Code's threshold for a model of ``window`` tokens (None: the window is not known yet)."""
    values: dict[str, tuple[str, str]] = {}  # variable -> (value, where it is set)
    enabled_off: str | None = None
    claude_dir = _claude_dir(transcript)
    global_config = read_config(claude_dir.parent / ".claude.json", json_object)
    if isinstance(global_config, dict) and global_config.get("autoCompactEnabled") is False:
        enabled_off = '"autoCompactEnabled": false in ~/.claude.json'
    for path, named in _settings_files(claude_dir, workspace):
        data = read_config(path, json_object)
        if not isinstance(data, dict):
            continue
        if data.get("autoCompactEnabled") is False:
            enabled_off = f'"autoCompactEnabled": false in {named}'
        variables = data.get("env")
        for key, value in variables.items() if isinstance(variables, dict) else []:
            if isinstance(key, str) and isinstance(value, (str, int)):
                values[key] = (str(value), f"{named} (env)")
    for key, value in env.items():
        if key in (*DISABLING, "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"):
            values.setdefault(key, (value, "the environment"))
    for key in DISABLING:
        if key in values and values[key][0].strip().lower() in TRUTHY:
            return AutoCompaction(None, "Claude Code", f"{key} in {values[key][1]}")
    if enabled_off is not None:
        return AutoCompaction(None, "Claude Code", enabled_off)
    if not window:
        return None
    origin = "Claude Code's default: the window less 33,000"
    lowered = _int(values.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW", ("", ""))[0])
    if lowered is not None and lowered < window:
        window = lowered
        origin = f"CLAUDE_CODE_AUTO_COMPACT_WINDOW in {values['CLAUDE_CODE_AUTO_COMPACT_WINDOW'][1]}, less 33,000"
    effective = window - OUTPUT_RESERVE
    threshold = effective - SUMMARY_BUFFER
    share = _int(values.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", ("", ""))[0])
    if share is not None and share <= 100:
        threshold = min(effective * share // 100, threshold)
        origin = f"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={share} in {values['CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'][1]}"
    return AutoCompaction(max(1, threshold), origin)
