"""Typed engine settings with the product's defaults.

The server parses ``initializationOptions`` (camelCase) into these once, where they enter; the engine only ever
sees these objects. Each field's allowed range is declared once, on the field (``limit``); ``__post_init__``
checks it, so an invalid value fails where it is built, and the server's parser asks the same declaration
(``check_setting``) about one value before building. Messages name the setting as the user writes it:
``section.camelCaseKey: must be at least 0, got -2``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

DEFAULT_COMPACTABLE_TOOLS: tuple[str, ...] = (
    # file read
    "read_file", "Read", "read_many_files",
    # search
    "grep", "Grep", "search_file_content", "glob", "Glob", "list_directory", "LS",
    # shell
    "run_shell_command", "Bash", "shell",
    # web
    "web_fetch", "WebFetch", "web_search", "WebSearch", "google_web_search",
    # edits and writes
    "edit", "Edit", "edit_file", "replace", "MultiEdit", "write_file", "Write", "NotebookEdit",
)  # fmt: skip
"""Tools whose old results may be cleared, in both naming styles (Qwen/Gemini-style and Claude Code-style)."""

DEFAULT_READ_TOOLS: tuple[str, ...] = ("read_file", "Read")
DEFAULT_WRITE_TOOLS: tuple[str, ...] = ("write_file", "Write")
DEFAULT_EDIT_TOOLS: tuple[str, ...] = ("edit", "Edit", "edit_file", "replace", "MultiEdit")


class SettingsError(ValueError):
    """A setting with a value the engine cannot use; the message names the setting."""


@dataclass(frozen=True)
class Limit:
    """The range of one numeric setting."""

    minimum: float
    maximum: float | None = None
    above: bool = False
    """The minimum itself is not allowed (a percent must be above 0)."""
    off: bool = False
    """-1 is allowed too: it turns the feature off."""
    key: str | None = None
    """The wire key when it is not the field's name in camelCase."""
    unit: str = ""

    def check(self, key: str, value: float) -> None:
        if self.off and value == -1:
            return
        low = value > self.minimum if self.above else value >= self.minimum
        if not low or (self.maximum is not None and value > self.maximum):
            raise SettingsError(f"{key}: {self.describe()}, got {_number(value)}{self.unit}")

    def describe(self) -> str:
        text = f"must be {'above' if self.above else 'at least'} {_number(self.minimum)}{self.unit}"
        if self.maximum is not None:
            text += f" and at most {_number(self.maximum)}{self.unit}"
        return text + (" (or -1 to turn it off)" if self.off else "")


def limit(minimum: float, **kwargs: Any) -> dict[str, Limit]:
    """Field metadata declaring the range: ``field(default=5, metadata=limit(0))``."""
    return {"limit": Limit(minimum, **kwargs)}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def setting_key(cls: type, name: str) -> str:
    """The wire key of field ``name`` of the settings class ``cls``: ``microcompact.keepRecent``."""
    declared = next((f.metadata.get("limit") for f in fields(cls) if f.name == name), None)
    key = declared.key if declared is not None and declared.key else re.sub(r"_(\w)", lambda m: m[1].upper(), name)
    section: str = getattr(cls, "SECTION", "")
    return f"{section}.{key}" if section else key


def check_setting(cls: type, name: str, value: Any) -> None:
    """Raise ``SettingsError`` if ``value`` is outside the range declared on field ``name`` of ``cls``."""
    for f in fields(cls):
        declared = f.metadata.get("limit")
        if f.name == name and declared is not None and isinstance(value, (int, float)):
            declared.check(setting_key(cls, name), value)


def check_limits(settings: Any) -> None:
    """Check every declared range of a settings object (its ``__post_init__``)."""
    for f in fields(settings):
        check_setting(type(settings), f.name, getattr(settings, f.name))


@dataclass(frozen=True)
class MicrocompactSettings:
    SECTION: ClassVar[str] = "microcompact"
    keep_recent: int = field(default=5, metadata=limit(0))
    """The N most recent compactable results are never cleared; floored at 1."""
    idle_minutes: float = field(default=60.0, metadata=limit(0, off=True))
    """Idle trigger: minutes since the last assistant response; -1 turns it off."""
    size_threshold_tokens: int = field(default=40_000, metadata=limit(1, off=True))
    """Size trigger: tool-result tokens above this clear oldest first down to half of it; -1 turns it off."""
    compactable_tools: tuple[str, ...] = DEFAULT_COMPACTABLE_TOOLS

    def __post_init__(self) -> None:
        check_limits(self)

    @property
    def effective_keep_recent(self) -> int:
        return max(1, self.keep_recent)

    @property
    def low_watermark_tokens(self) -> int:
        return self.size_threshold_tokens // 2


@dataclass(frozen=True)
class RehydrationSettings:
    SECTION: ClassVar[str] = "rehydration"
    max_files: int = field(default=50, metadata=limit(0))
    """A bound on how many files (and deleted-file notices) come back; the token budget decides which."""
    token_budget: int = field(default=20_000, metadata=limit(0))
    """Files are re-attached best ranked first until this many tokens (docs/evaluation.md says why 20k)."""
    max_tokens_per_file: int = field(default=8_000, metadata=limit(0))
    """A file over this comes back as the lines the agent read or edited (else its head)."""
    skill_tokens_each: int = field(default=5_000, metadata=limit(0))
    skill_tokens_total: int = field(default=25_000, metadata=limit(0))

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass(frozen=True)
class AutoCompactSettings:
    SECTION: ClassVar[str] = "autoCompact"
    enabled: bool = True
    threshold_tokens: int | None = field(default=None, metadata=limit(1, key="threshold"))
    threshold_percent: float | None = field(
        default=None, metadata=limit(0, maximum=100, above=True, key="threshold", unit="%")
    )
    reserved_output_tokens: int = 20_000
    buffer_tokens: int = 13_000
    warning_margin_tokens: int = 20_000
    max_consecutive_failures: int = 3

    def __post_init__(self) -> None:
        check_limits(self)

    def threshold_for(self, context_window: int) -> int:
        """min(85% of the window, window - reserved output - buffer) but at least half the window, unless
        configured (a small window cannot hold the reserve: compacting at once would be no help)."""
        if self.threshold_tokens is not None:
            return min(self.threshold_tokens, context_window)
        if self.threshold_percent is not None:
            return max(1, int(context_window * self.threshold_percent / 100))
        reserved = context_window - self.reserved_output_tokens - self.buffer_tokens
        return max(1, context_window // 2, min(int(context_window * 0.85), reserved))

    def warning_for(self, context_window: int) -> int:
        """The margin below the threshold, but never below 80% of it: a warning means "compaction is near"."""
        threshold = self.threshold_for(context_window)
        return max(threshold - self.warning_margin_tokens, threshold * 4 // 5)


@dataclass(frozen=True)
class SessionMemorySettings:
    SECTION: ClassVar[str] = "sessionMemory"
    enabled: bool = True
    """Keep background notes that make compaction instant."""
    use_model: bool = True
    """Write them with the model when an API key is set (else, or when off, the offline extractor)."""
    first_after_tokens: int = field(default=10_000, metadata=limit(0))
    every_tokens: int = field(default=5_000, metadata=limit(0))
    min_tool_calls: int = field(default=3, metadata=limit(0))

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass(frozen=True)
class MemorySettings:
    SECTION: ClassVar[str] = "memory"
    project_root: str | None = None
    user_root: str | None = None
    team_root: str | None = None


@dataclass(frozen=True)
class EngineSettings:
    context_window: int = field(default=200_000, metadata=limit(1_000))
    model: str = "claude-sonnet-4-5"
    compaction_model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    """Only when not in the environment (ANTHROPIC_API_KEY); never logged, never written to session files."""
    memory: MemorySettings = field(default_factory=MemorySettings)
    microcompact: MicrocompactSettings = field(default_factory=MicrocompactSettings)
    rehydration: RehydrationSettings = field(default_factory=RehydrationSettings)
    auto_compact: AutoCompactSettings = field(default_factory=AutoCompactSettings)
    session_memory: SessionMemorySettings = field(default_factory=SessionMemorySettings)
    read_tools: tuple[str, ...] = DEFAULT_READ_TOOLS
    write_tools: tuple[str, ...] = DEFAULT_WRITE_TOOLS
    edit_tools: tuple[str, ...] = DEFAULT_EDIT_TOOLS
    session_dir: str | None = None
    read_state_capacity: int = field(default=4096, metadata=limit(1))
    pre_compact_command: str | None = None
    """A shell command run (in the workspace) before each full compaction; its output adds instructions."""
    additional_directories: tuple[str, ...] = ()
    """Directories beyond the workspace folders that the agent may use and rehydration may draw from (Claude
    Code's ``/add-dir``); absolute once the server has resolved them against the workspace root."""
    workspace_folders: tuple[str, ...] = ()
    """Every workspace folder the client opened (multi-root), set by the server; not a user setting."""

    def __post_init__(self) -> None:
        check_limits(self)
