"""How many recent files Qwen Code re-reads after its summary, found as Qwen finds it (``qwen_files``).

Qwen Code 0.24.4 (its ``resolveCompactionTuning``, read in the bundle on 2026-12-06) takes
``$QWEN_COMPACT_MAX_RECENT_FILES`` when it is, once trimmed, ASCII digits making a safe integer (``0``: none; no
upper bound), else its merged ``model.chatCompression.maxRecentFilesToRetain`` setting when that is a safe integer
of at least 0, else 5. The hook runs as Qwen's child and inherits its environment (less Qwen's own secrets), and
reads the settings files as Qwen merges them (``qwen_setting``): the system file over the workspace's over the
user's over the system defaults, the first that holds the key deciding, valid or not.

What the hook cannot see is left out: the workspace's file counts only while folder trust is off (Qwen's default;
with it on, trust depends on rules this does not model, and the workspace's file is skipped), and a file that is not
plain JSON (Qwen also reads comments and trailing commas) counts as absent. Every file is untrusted: read as the
agents' other configuration files are (agents/agent_config.py: bounded, a regular file, any parse failure absent),
only this number taken from it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compact_lsp.agents.agent_config import json_object, read_config

QWEN_FILES = 5
"""Qwen's default (``DEFAULT_MAX_RECENT_FILES``)."""
RECENT_FILES_ENV = "QWEN_COMPACT_MAX_RECENT_FILES"
MAX_SAFE_INTEGER = 2**53 - 1
MISSING = object()
"""No file sets the key (distinct from JSON ``null``, which sets it to something invalid)."""


def _system_path(env: Mapping[str, str]) -> str:
    """Qwen's ``getSystemSettingsPath``."""
    if env.get("QWEN_CODE_SYSTEM_SETTINGS_PATH"):
        return env["QWEN_CODE_SYSTEM_SETTINGS_PATH"]
    if sys.platform == "darwin":
        return "/Library/Application Support/QwenCode/settings.json"
    if sys.platform == "win32":
        return "C:\\ProgramData\\qwen-code\\settings.json"
    return "/etc/qwen-code/settings.json"


def _user_dir(env: Mapping[str, str]) -> str:
    """Qwen's ``Storage.getGlobalQwenDir``: ``$QWEN_HOME``, else ``~/.qwen``."""
    home = env.get("QWEN_HOME")
    return os.path.abspath(os.path.expanduser(home)) if home else os.path.join(os.path.expanduser("~"), ".qwen")


def _read(path: str) -> dict[str, Any]:
    """A settings file's object; ``{}`` when it is missing, too big, not a regular file or not a JSON object."""
    return read_config(Path(path), json_object) or {}


def _compression(settings: dict[str, Any]) -> object:
    """``model.chatCompression.maxRecentFilesToRetain``, or under a version 1 file's top-level ``chatCompression``
    (Qwen migrates that to ``model.chatCompression``); ``MISSING`` when unset."""
    model = settings.get("model")
    section = model.get("chatCompression") if isinstance(model, dict) else None
    if not isinstance(section, dict) and "$version" not in settings:
        section = settings.get("chatCompression")
    return section.get("maxRecentFilesToRetain", MISSING) if isinstance(section, dict) else MISSING


def _trusts_folders(settings: dict[str, Any]) -> bool:
    security = settings.get("security")
    trust = security.get("folderTrust") if isinstance(security, dict) else None
    return isinstance(trust, dict) and trust.get("enabled") is True


def qwen_setting(cwd: str, env: Mapping[str, str] = os.environ) -> object:
    """The ``maxRecentFilesToRetain`` Qwen's merged settings hold for a session in ``cwd`` (``MISSING``: none)."""
    system_path = _system_path(env)
    defaults_path = env.get("QWEN_CODE_SYSTEM_DEFAULTS_PATH") or os.path.join(
        os.path.dirname(system_path), "system-defaults.json"
    )
    user_path = os.path.join(_user_dir(env), "settings.json")
    workspace_path = os.path.join(cwd, ".qwen", "settings.json")
    system, defaults, user = _read(system_path), _read(defaults_path), _read(user_path)
    same = os.path.abspath(workspace_path) == os.path.abspath(user_path)
    trusted = not any(_trusts_folders(s) for s in (system, defaults, user))
    workspace = _read(workspace_path) if trusted and not same else {}
    for settings in (system, workspace, user, defaults):
        value = _compression(settings)
        if value is not MISSING:
            return value
    return MISSING


def _safe_count(value: object) -> int | None:
    """``value`` when JavaScript's ``Number.isSafeInteger(value) && value >= 0`` holds for it, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    number = int(value)
    return number if 0 <= number <= MAX_SAFE_INTEGER else None


def qwen_files(env: Mapping[str, str] = os.environ, setting: object = MISSING) -> int:
    """How many recent files Qwen re-reads after its summary: ``$QWEN_COMPACT_MAX_RECENT_FILES`` as Qwen reads it,
    else ``setting`` (``qwen_setting``) when valid, else ``QWEN_FILES``."""
    value = env.get(RECENT_FILES_ENV, "").strip()
    if value.isascii() and value.isdigit():
        digits = value.lstrip("0") or "0"  # bounded before int(): an environment variable can be long
        if len(digits) <= len(str(MAX_SAFE_INTEGER)) and int(digits) <= MAX_SAFE_INTEGER:
            return int(digits)
    counted = _safe_count(setting)
    return QWEN_FILES if counted is None else counted
