"""Typed engine settings with the product's defaults.

The server parses ``initializationOptions`` (camelCase) into these once, where they enter; the engine only ever
sees these objects. Each setting is declared once, on its field (engine/setting_ranges.py ``setting``: its one
line for the user, its range, its wire key); the parser, the schema, the editors' settings and the docs' table are
derived from it. ``__post_init__`` checks the ranges, so an invalid value fails where it is built, and the
server's parser asks the same declaration (``check_setting``) about one value before building. Messages name the
setting as the user writes it: ``section.camelCaseKey: must be at least 0, got -2``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.setting_ranges import DEFAULT_CONTEXT_WINDOW, check_limits, limit, percent, setting, share_of
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
    keep_recent: int = field(
        default=5, metadata=setting("Compactable tool results always kept (floored at 1).", limit(0))
    )
    """The results of the round the model has not answered yet are never cleared either, however many there are."""
    idle_minutes: float = field(
        default=60.0,
        metadata=setting("Idle trigger in minutes since the last response; -1 turns it off.", limit(0, off=True)),
    )
    size_threshold_tokens: int | None = field(
        default=None,
        metadata=setting(
            "Size trigger in tokens on the tool results outside the kept ones (all of them are cleared when they pass "
            "it, so the next rewrite waits for as much again); -1 turns it off; unset: `sizeThresholdPercent` of the "
            "context window.",
            limit(1, off=True),
        ),
    )
    size_threshold_percent: float = field(
        default=20.0,
        metadata=setting("The size trigger as a share of the context window, in percent (40k at 200k).", percent()),
    )
    compactable_tools: tuple[str, ...] = field(
        default=DEFAULT_COMPACTABLE_TOOLS,
        metadata=setting(
            "Tools whose old results may be cleared.", default_words="the server's list (`docs/engine.md`)"
        ),
    )

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
    enabled: bool = field(default=True, metadata=setting("Compact automatically at the threshold."))
    threshold_tokens: int | None = field(
        default=None,
        metadata=setting(
            'Auto-compact threshold in tokens (`150000`) or a percent of the window (`"80%"`); unset: min(85% of the '
            "window, window − 33k).",
            limit(1, key="threshold"),
            kind="threshold",
            key="threshold",
        ),
    )
    threshold_percent: float | None = field(
        default=None, metadata=limit(0, maximum=100, above=True, key="threshold", unit="%")
    )
    """Set from the wire with ``threshold_tokens`` (``"80%"``)."""
    summary_percent: float = field(
        default=10.0,
        metadata=setting(
            "The summary's size as a share of the context window, in percent (20k at 200k, at most 32k).",
            percent(),
            more="It is the model's output budget and the offline summary's length.",
        ),
    )
    """At most ``MAX_SUMMARY_TOKENS``."""
    headroom_percent: float = field(
        default=20.0,
        metadata=setting(
            "Room a compaction aims to leave below the threshold, as a share of the context window; after an automatic "
            "compaction that could not make room, the next waits until the context has grown by about this much.",
            percent(maximum=50),
            more="Re-attached files get only what the summary leaves below it, and an automatic "
            "compaction (or the clearing that stands in for it) that cannot get there does not happen; after such a "
            '"not smaller" outcome automatic compaction waits until the context has grown by this share (or half of '
            "what is left above the threshold, at least 5%) and says so once, with what to change.",
        ),
    )
    """Each rewrite breaks the prompt cache, so each must buy this much growth."""
    reserved_output_tokens: int = 20_000
    buffer_tokens: int = 13_000
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


@dataclass(frozen=True)
class SessionNotesSettings:
    """The background session notes a compaction can use as its summary (the settings key keeps its first name,
    `sessionMemory`, so that no user's configuration stops working)."""

    SECTION: ClassVar[str] = "sessionMemory"
    enabled: bool = field(
        default=True,
        metadata=setting(
            "Keep background session notes so a compaction can use them at once, without waiting for a model."
        ),
    )
    use_model: bool = field(
        default=True,
        metadata=setting(
            "Write the session notes with the model when an API key is set (otherwise the offline extractor writes "
            "them)."
        ),
    )
    first_after_tokens: int = field(
        default=10_000, metadata=setting("First session notes once the session has this many tokens.", limit(0))
    )
    every_tokens: int = field(
        default=5_000,
        metadata=setting(
            "Update the notes after this many more tokens (and the minimum number of tool calls).", limit(0)
        ),
    )
    min_tool_calls: int = field(
        default=3, metadata=setting("Tool calls needed since the last notes before they are updated again.", limit(0))
    )

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass(frozen=True)
class MemorySettings:
    """The managed memory's folders: project, user and team (None: where they are by default)."""

    SECTION: ClassVar[str] = "memory"
    project_root: str | None = field(
        default=None,
        metadata=setting(
            "Managed-memory root of the project, anywhere (unset: `<workspace>/.compact/memory`, plus Claude Code's "
            "and Qwen Code's project memory folders when they exist).",
            kind="path",
            user_only=True,
            more="Never `/`, the home directory or above (ignored with one warning, `window/showMessage`). Unset, the "
            "in-workspace default counts only when its realpath lies inside the workspace; Claude Code's "
            "`~/.claude/projects/<project>/memory/` and Qwen Code's `~/.qwen/projects/<git root>/memory/` count too "
            "when they exist.",
        ),
    )
    user_root: str | None = field(
        default=None,
        metadata=setting(
            "The user's managed memory (unset: `<user config dir>/compact-lsp/memory`).",
            kind="path",
            user_only=True,
            more="Never `/`, the home directory or above (ignored with one warning).",
        ),
    )
    team_root: str | None = field(
        default=None,
        metadata=setting(
            "A team's shared managed memory (unset: off).",
            kind="path",
            user_only=True,
            more="The same rules as `memory.userRoot`. Qwen Code's team memory in the repository "
            "(`<git root>/.qwen/team-memory/`) counts too when it exists and resolves inside the workspace.",
        ),
    )


@dataclass(frozen=True)
class EngineSettings:
    """Every engine setting, by section: the one object the engine is configured with."""

    context_window: int = field(
        default=200_000, metadata=setting("The model's context window in tokens.", limit(1_000))
    )
    model: str = field(default="claude-sonnet-4-5", metadata=setting("Model for the agent."))
    compaction_model: str | None = field(
        default=None, metadata=setting("Cheaper model for summaries (unset: `model`).")
    )
    base_url: str | None = field(
        default=None,
        metadata=setting(
            "Messages API base URL (unset: `ANTHROPIC_BASE_URL`, else the SDK's default).",
            kind="url",
            user_only=True,
            more="A repository's settings cannot send the key elsewhere.",
        ),
    )
    api_key: str | None = field(
        default=None,
        repr=False,
        metadata=setting(
            "Only if the key is not in the server's environment (`ANTHROPIC_API_KEY`); never logged or stored.",
            kind="secret",
            more="Editors should pass the key through the environment instead.",
            not_in_vscode="VS Code keeps the key in SecretStorage and passes it in the server's environment",
        ),
    )
    memory: MemorySettings = field(default_factory=MemorySettings)
    microcompact: MicrocompactSettings = field(default_factory=MicrocompactSettings)
    rehydration: RehydrationSettings = field(default_factory=RehydrationSettings)
    auto_compact: AutoCompactSettings = field(default_factory=AutoCompactSettings)
    session_notes: SessionNotesSettings = field(default_factory=SessionNotesSettings)
    read_tools: tuple[str, ...] = field(
        default=DEFAULT_READ_TOOLS, metadata=setting("Tool names whose results are file reads.")
    )
    write_tools: tuple[str, ...] = DEFAULT_WRITE_TOOLS
    edit_tools: tuple[str, ...] = DEFAULT_EDIT_TOOLS
    session_dir: str | None = field(
        default=None,
        metadata=setting(
            "Where sessions are stored (unset: the user state directory).",
            kind="path",
            user_only=True,
            more="A repository's settings cannot move the journals, which hold the conversation and file contents.",
        ),
    )
    read_state_capacity: int = field(default=4096, metadata=limit(1))
    pre_compact_command: str | None = field(
        default=None,
        metadata=setting(
            "A shell command run in the workspace before each full compaction; its output is added to the compaction "
            "instructions.",
            user_only=True,
            more="A failure stops the compaction, nothing changes. A repository cannot choose a program to run.",
        ),
    )
    additional_directories: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "Directories outside the workspace folders that the agent may read and edit and that rehydration may "
            "re-attach files from (like Claude Code's `/add-dir`); relative ones are relative to the first workspace "
            "folder.",
            kind="paths",
            user_only=True,
            more="With every workspace folder of a multi-root workspace they "
            "are the *allowed roots*: never anywhere else. `~` is expanded.",
        ),
    )
    """Absolute once the server has resolved them against the workspace root."""
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
        session_notes=replace(settings.session_notes or SessionNotesSettings(), enabled=False),
    )
