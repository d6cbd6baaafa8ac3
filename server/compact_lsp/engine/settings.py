"""Typed engine settings with the product's defaults.

The server parses ``initializationOptions`` (camelCase) into these once, where they enter; the engine only ever
sees these objects. Each field's allowed range is declared once, on the field (``limit``); ``__post_init__``
checks it, so an invalid value fails where it is built, and the server's parser asks the same declaration
(``check_setting``) about one value before building. Messages name the setting as the user writes it:
``section.camelCaseKey: must be at least 0, got -2``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.setting_ranges import DEFAULT_CONTEXT_WINDOW, check_limits, limit, percent, share_of
from compact_lsp.engine.tool_names import (
    DEFAULT_COMPACTABLE_TOOLS,
    DEFAULT_EDIT_TOOLS,
    DEFAULT_READ_TOOLS,
    DEFAULT_WRITE_TOOLS,
)

MAX_SUMMARY_TOKENS = 32_000
"""The summary's size stops growing with the window here: past it a summary is a transcript, and models cap their
output near it."""


@dataclass(frozen=True)
class MicrocompactSettings:
    """When old tool results are cleared, and which."""

    SECTION: ClassVar[str] = "microcompact"
    keep_recent: int = field(default=5, metadata=limit(0))
    """The N most recent compactable results are never cleared; floored at 1. The results of the round the model
    has not answered yet are never cleared either, however many there are."""
    idle_minutes: float = field(default=60.0, metadata=limit(0, off=True))
    """Idle trigger: minutes since the last assistant response; -1 turns it off."""
    size_threshold_tokens: int | None = field(default=None, metadata=limit(1, off=True))
    """Size trigger in tokens: when the results outside the kept ones pass it, all of them are cleared; -1 turns
    it off; None: ``size_threshold_percent`` of the window."""
    size_threshold_percent: float = field(default=20.0, metadata=percent())
    """The size trigger as a share of the context window (20%: 40k at 200k) when no token figure is set."""
    compactable_tools: tuple[str, ...] = DEFAULT_COMPACTABLE_TOOLS

    def __post_init__(self) -> None:
        check_limits(self)

    @property
    def effective_keep_recent(self) -> int:
        return max(1, self.keep_recent)

    def size_trigger_tokens(self, context_window: int = DEFAULT_CONTEXT_WINDOW) -> int:
        """The size trigger in tokens at this window (-1: off)."""
        if self.size_threshold_tokens is not None:
            return self.size_threshold_tokens
        return max(1, share_of(context_window, self.size_threshold_percent))

    def for_window(self, context_window: int) -> MicrocompactSettings:
        """These settings with the size trigger resolved for the window (what a plan is made with)."""
        return replace(self, size_threshold_tokens=self.size_trigger_tokens(context_window))


@dataclass(frozen=True)
class AutoCompactSettings:
    """When a full compaction starts by itself."""

    SECTION: ClassVar[str] = "autoCompact"
    enabled: bool = True
    threshold_tokens: int | None = field(default=None, metadata=limit(1, key="threshold"))
    threshold_percent: float | None = field(
        default=None, metadata=limit(0, maximum=100, above=True, key="threshold", unit="%")
    )
    summary_percent: float = field(default=10.0, metadata=percent())
    """The summary's size as a share of the window (10%: 20k at 200k), at most ``MAX_SUMMARY_TOKENS``."""
    headroom_percent: float = field(default=20.0, metadata=percent(maximum=50))
    """Room an automatic compaction (or the clearing that stands in for it) must leave below the threshold, as a
    share of the window: each rewrite breaks the prompt cache, so each must buy this much growth."""
    reserved_output_tokens: int = 20_000
    buffer_tokens: int = 13_000
    warning_margin_tokens: int = 20_000
    max_consecutive_failures: int = 3

    def __post_init__(self) -> None:
        check_limits(self)

    def summary_tokens(self, context_window: int) -> int:
        return max(256, min(MAX_SUMMARY_TOKENS, share_of(context_window, self.summary_percent)))

    def target_for(self, context_window: int) -> int:
        """The size a compaction aims at: the threshold less the headroom, but never below half the threshold."""
        threshold = self.threshold_for(context_window)
        return max(threshold // 2, threshold - share_of(context_window, self.headroom_percent))

    def retry_margin(self, context_window: int) -> int:
        """How far the context must grow after an automatic compaction that could not make room before the next
        try: the headroom, or half of what is left of the window above the threshold if that is less, but at least
        5% of the window."""
        room_above = (context_window - self.threshold_for(context_window)) // 2
        headroom = share_of(context_window, self.headroom_percent)
        return max(context_window // 20, min(headroom, room_above))

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
    """The background session notes a compaction can use as its summary."""

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
    """The managed memory's folders: project, user and team (None: where they are by default)."""

    SECTION: ClassVar[str] = "memory"
    project_root: str | None = None
    user_root: str | None = None
    team_root: str | None = None


@dataclass(frozen=True)
class EngineSettings:
    """Every engine setting, by section: the one object the engine is configured with."""

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


def passive(settings: EngineSettings) -> EngineSettings:
    """A followed session's settings: the user's, with nothing that would act on its own (no triggers, no notes)."""
    micro = replace(settings.microcompact, idle_minutes=-1, size_threshold_tokens=-1)
    return replace(
        settings,
        microcompact=micro,
        auto_compact=replace(settings.auto_compact or AutoCompactSettings(), enabled=False),
        session_memory=replace(settings.session_memory or SessionMemorySettings(), enabled=False),
    )
