"""Typed engine settings with the product's defaults.

The server parses ``initializationOptions`` (camelCase) into these once, where they enter; the engine only ever
sees these objects. ``__post_init__`` validates, so an invalid value fails where it is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
class MicrocompactSettings:
    keep_recent: int = 5
    """The N most recent compactable results are never cleared; floored at 1."""
    idle_minutes: float = 60.0
    """Idle trigger: minutes since the last assistant response; -1 turns it off."""
    size_threshold_tokens: int = 40_000
    """Size trigger: tool-result tokens above this clear oldest first down to half of it; -1 turns it off."""
    compactable_tools: tuple[str, ...] = DEFAULT_COMPACTABLE_TOOLS

    def __post_init__(self) -> None:
        if self.idle_minutes != -1 and self.idle_minutes < 0:
            raise SettingsError("microcompact.idleMinutes must be >= 0, or -1 to turn the idle trigger off")
        if self.size_threshold_tokens != -1 and self.size_threshold_tokens <= 0:
            raise SettingsError("microcompact.sizeThresholdTokens must be > 0, or -1 to turn it off")

    @property
    def effective_keep_recent(self) -> int:
        return max(1, self.keep_recent)

    @property
    def low_watermark_tokens(self) -> int:
        return self.size_threshold_tokens // 2


@dataclass(frozen=True)
class RehydrationSettings:
    max_files: int = 5
    token_budget: int = 50_000
    max_tokens_per_file: int = 5_000
    skill_tokens_each: int = 5_000
    skill_tokens_total: int = 25_000

    def __post_init__(self) -> None:
        for name in ("max_files", "token_budget", "max_tokens_per_file", "skill_tokens_each", "skill_tokens_total"):
            if getattr(self, name) < 0:
                raise SettingsError(f"rehydration.{name} must be >= 0")


@dataclass(frozen=True)
class AutoCompactSettings:
    enabled: bool = True
    threshold_tokens: int | None = None
    threshold_percent: float | None = None
    reserved_output_tokens: int = 20_000
    buffer_tokens: int = 13_000
    warning_margin_tokens: int = 20_000
    max_consecutive_failures: int = 3

    def __post_init__(self) -> None:
        if self.threshold_percent is not None and not 0 < self.threshold_percent <= 100:
            raise SettingsError("autoCompact.threshold as a percent must be in (0, 100]")
        if self.threshold_tokens is not None and self.threshold_tokens <= 0:
            raise SettingsError("autoCompact.threshold in tokens must be > 0")

    def threshold_for(self, context_window: int) -> int:
        """min(85% of the window, window - reserved output - buffer), unless configured."""
        if self.threshold_tokens is not None:
            return min(self.threshold_tokens, context_window)
        if self.threshold_percent is not None:
            return int(context_window * self.threshold_percent / 100)
        return max(
            1, min(int(context_window * 0.85), context_window - self.reserved_output_tokens - self.buffer_tokens)
        )

    def warning_for(self, context_window: int) -> int:
        return max(0, self.threshold_for(context_window) - self.warning_margin_tokens)


@dataclass(frozen=True)
class SessionMemorySettings:
    enabled: bool = True
    """Keep background notes that make compaction instant."""
    use_model: bool = True
    """Write them with the model when an API key is set (else, or when off, the offline extractor)."""
    first_after_tokens: int = 10_000
    every_tokens: int = 5_000
    min_tool_calls: int = 3

    def __post_init__(self) -> None:
        for name in ("first_after_tokens", "every_tokens", "min_tool_calls"):
            if getattr(self, name) < 0:
                raise SettingsError(f"sessionMemory.{name} must be >= 0")


@dataclass(frozen=True)
class MemorySettings:
    project_root: str | None = None
    user_root: str | None = None
    team_root: str | None = None


@dataclass(frozen=True)
class EngineSettings:
    context_window: int = 200_000
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
    read_state_capacity: int = 4096
    pre_compact_command: str | None = None
    """A shell command run (in the workspace) before each full compaction; its output adds instructions."""

    def __post_init__(self) -> None:
        if self.context_window < 1_000:
            raise SettingsError("contextWindow must be at least 1000 tokens")
