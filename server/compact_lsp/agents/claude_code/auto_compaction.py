"""Claude Code's automatic compaction as configured, by the version its transcript records (each rule read in that
version's npm package, docs/claude-code.md "When Claude Code compacts by itself"):

- since 2.1.21 (read in the 2.1.332 binary, checked on its transcripts) it fires at the effective window less 13,000
  tokens; the effective window is the model's window less its output reserve (the smaller of its maximum output and
  20,000): 167,000 at 200k, 967,000 at 1M. From 1.0.71 to 2.1.20 the reserve was the whole maximum output (32,000):
  the window less 45,000. From 1.0.16 to 1.0.70, 92% of (200,000 less 32,000): 154,560; from 0.2.109 to 1.0.15, 92%
  of 180,000: 165,600. Earlier versions took the share from a server-side flag: not told;
- ``CLAUDE_CODE_AUTO_COMPACT_WINDOW`` (since 2.1.75) lowers the window it counts with;
  ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`` (1-100, since 2.0.20) lowers the threshold to that share of the effective window;
- ``DISABLE_COMPACT`` (since 2.0.30) or ``DISABLE_AUTO_COMPACT`` (since 2.0.77), in the environment or a settings
  file's ``env``, or ``"autoCompactEnabled": false`` (``~/.claude.json`` or a settings file) turn it off without a
  word: the session then runs into the window's end.

We see the environment the editor started us with, which is the terminal's when the editor was started from it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compact_lsp.agents.agent_config import home, json_object, read_config
from compact_lsp.engine.conversation.next_compaction import AutoCompaction

OUTPUT_RESERVE = 20_000
SUMMARY_BUFFER = 13_000
TRUTHY = frozenset({"1", "true", "yes", "on"})
Version = tuple[int, int, int]
SINCE: dict[str, Version] = {
    "DISABLE_COMPACT": (2, 0, 30),
    "DISABLE_AUTO_COMPACT": (2, 0, 77),
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW": (2, 1, 75),
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": (2, 0, 20),
}
"""The version each variable first took effect in (the package's cli.js names it from then on)."""
DISABLING = ("DISABLE_COMPACT", "DISABLE_AUTO_COMPACT")


@dataclass(frozen=True)
class CompactionRule:
    """Where a range of Claude Code versions compacts by itself."""

    since: Version
    reserve: int
    """Subtracted from the window to make the effective window (the output reserve)."""
    buffer: int
    """Subtracted from the effective window, after ``share``."""
    share: int = 100
    """Percent of the effective window."""
    window: int | None = None
    """The window every model counted with then (None: the model's)."""
    words: str = ""


RULES = (
    CompactionRule((0, 2, 109), 0, 0, 92, 180_000, "92% of 180,000"),
    CompactionRule((1, 0, 16), 32_000, 0, 92, 200_000, "92% of (200,000 less 32,000)"),
    CompactionRule((1, 0, 71), 32_000, SUMMARY_BUFFER, words="the window less 45,000"),
    CompactionRule((2, 1, 21), OUTPUT_RESERVE, SUMMARY_BUFFER, words="the window less 33,000"),
)
"""Newest last; each holds from its version to the next one's."""
_VERSION = re.compile(r"(\d{1,4})\.(\d{1,4})\.(\d{1,6})")


def parsed_version(text: object) -> Version | None:
    """``"2.0.14"`` -> ``(2, 0, 14)``; None for anything else."""
    found = _VERSION.fullmatch(text) if isinstance(text, str) else None
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def recorded_version(records: Iterable[Mapping[str, Any]]) -> str | None:
    """The last Claude Code version the transcript's records name (``version``), or None."""
    version = None
    for record in records:
        named = record.get("version")
        if parsed_version(named) is not None:
            version = named
    return version


def rule_for(version: Version | None) -> CompactionRule | None:
    """The rule of ``version`` (None: not told, the newest); None before the first rule we know."""
    if version is None:
        return RULES[-1]
    return next((rule for rule in reversed(RULES) if version >= rule.since), None)


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


def _configured(
    workspace: str | None, transcript: Path | None, env: Mapping[str, str]
) -> tuple[dict[str, tuple[str, str]], str | None]:
    """The variables that shape it (variable -> (value, where it is set)), and what sets autoCompactEnabled off."""
    values: dict[str, tuple[str, str]] = {}
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
        if key in SINCE:
            values.setdefault(key, (value, "the environment"))
    return values, enabled_off


def _threshold(rule: CompactionRule, window: int, values: dict[str, tuple[str, str]], origin: str) -> AutoCompaction:
    """Where ``rule`` fires for a model of ``window`` tokens, with the variables in ``values`` that it honours."""
    lowered = _int(values.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW", ("", ""))[0])
    window = rule.window or window
    if lowered is not None and lowered < window:
        window = lowered
        origin = f"CLAUDE_CODE_AUTO_COMPACT_WINDOW in {values['CLAUDE_CODE_AUTO_COMPACT_WINDOW'][1]}, less 33,000"
    effective = window - rule.reserve
    threshold = effective * rule.share // 100 - rule.buffer
    share = _int(values.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", ("", ""))[0])
    if share is not None and share <= 100:
        threshold = min(effective * share // 100, threshold)
        origin = f"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE={share} in {values['CLAUDE_AUTOCOMPACT_PCT_OVERRIDE'][1]}"
    return AutoCompaction(max(1, threshold), origin)


def claude_code_auto_compaction(
    window: int | None,
    workspace: str | None,
    transcript: Path | None,
    env: Mapping[str, str],
    version: str | None = None,
) -> AutoCompaction | None:
    """Claude Code's threshold for a model of ``window`` tokens, by the rule of the ``version`` its transcript
    records (None: not recorded, the newest rule); None: the window is not known yet, or the version is older than
    every rule we know."""
    known = parsed_version(version)
    rule = rule_for(known)
    if rule is None:
        return None
    values, enabled_off = _configured(workspace, transcript, env)
    values = {key: value for key, value in values.items() if key in SINCE and (known is None or known >= SINCE[key])}
    for key in DISABLING:
        if key in values and values[key][0].strip().lower() in TRUTHY:
            return AutoCompaction(None, "Claude Code", f"{key} in {values[key][1]}")
    if enabled_off is not None:
        return AutoCompaction(None, "Claude Code", enabled_off)
    if not window:
        return None
    if rule is RULES[-1]:
        origin = f"Claude Code's default: {rule.words}"
    else:
        origin = f"Claude Code {version} compacts at {rule.words} (2.1.21 and later: the window less 33,000)"
    return _threshold(rule, window, values, origin)
