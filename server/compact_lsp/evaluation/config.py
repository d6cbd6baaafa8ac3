"""What an evaluation compares: the rehydration policies, the microcompaction policies, the points."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from compact_lsp.agents.claude_code.reattached import CLAUDE_CODE_FILES
from compact_lsp.agents.gemini_cli.hook import GEMINI_BUDGET
from compact_lsp.agents.qwen_code.hook import QWEN_BUDGET
from compact_lsp.engine.compaction.file_excerpts import DEFAULT_EXCERPTS, EXCERPTS_BEFORE, ExcerptPolicy
from compact_lsp.engine.compaction.file_ranking import Ranker, boosted_ranker, recency_ranker
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.settings import MicrocompactSettings
from compact_lsp.evaluation.cost import DEFAULT_TTL_SECONDS

CLAUDE_CODE_BUDGET = RehydrationSettings(max_files=5, token_budget=50_000, max_tokens_per_file=5_000)
"""Qwen Code's rule (and Claude Code's as it was once described): the five most recent files, 5k tokens each."""
CLAUDE_CODE_RULE = RehydrationSettings(
    max_files=CLAUDE_CODE_FILES, token_budget=10_000_000, max_tokens_per_file=10_000_000
)
"""Claude Code's rule as measured on the real CLI (agents/character_fit.py, the hook's own model): the
five most recent files touched by Read, Edit or Write, each whole."""
TIGHT_BUDGET = RehydrationSettings(max_files=2, token_budget=10_000, max_tokens_per_file=5_000)

DEFAULT_SETTINGS = RehydrationSettings()
"""The product's defaults (engine/settings.py): a token budget filled by rank; the file count only bounds."""


def budget(tokens: int, per_file: int = 5_000) -> RehydrationSettings:
    """A token budget filled by rank, with the product's (loose) file-count bound."""
    return RehydrationSettings(max_files=DEFAULT_SETTINGS.max_files, token_budget=tokens, max_tokens_per_file=per_file)


@dataclass(frozen=True)
class RankerSpec:
    """One rehydration policy under test."""

    name: str
    ranker: Ranker
    slices: bool = True
    """Give rehydration the summarised history, so a big file comes back as the lines read or edited
    (False: it comes back as its head, as a plain truncation would)."""
    settings: RehydrationSettings = CLAUDE_CODE_BUDGET
    default: bool = False
    """The product's default policy (its settings and ranker)."""
    workspace_only: bool = False
    """Attach only files in the workspace folder (no admitted files outside it); needs outside it are misses."""
    editor_focus: bool = False
    """Feed the logs' editor-focus notices to the read-file state (the live server learns them from the editor;
    ``compact-lsp compact`` and an import have no editor)."""
    claude_code_hook: bool = False
    """Add what our hook adds after this policy's own files (agents/character_fit.py; the Claude Code and
    the Codex hook decide alike)."""
    own_files: bool = True
    """False: the agent re-attaches no files of its own after compacting (Codex CLI keeps only its summary and
    the user's messages, docs/codex.md)."""
    excerpts: ExcerptPolicy = DEFAULT_EXCERPTS
    """How a file over its budget comes back (gaps filled, outline of the rest; engine/compaction/file_excerpts)."""
    size_cut: bool = False
    """Apply Claude Code's size cut to its five files (``agents/claude_code/reattached.claude_code_reattachment``,
    measured on the real CLI): a file past it comes back by name only, which the metrics count as not attached."""
    qwen_cut: bool = False
    """Apply Qwen Code's rule to its five files instead (``agents/qwen_code/hook.qwen_restored``, what our Qwen hook
    models: whole up to 5,000 tokens at 4 characters a token, by name past it, 50,000 tokens in all)."""
    hook_budget: int | None = None
    """With ``claude_code_hook``: the hook's budget for files and slices in characters (None: Claude Code's)."""


@dataclass(frozen=True)
class MicroSpec:
    """One microcompaction policy; ``size_scale`` sets the size threshold to that share of the session's
    tool-result tokens (sessions in logs are small beside the 40k default).

    ``style`` "engine" runs the engine's own triggers with ``settings``; "qwen" is a plain size trigger: whenever
    the tool results pass the threshold, everything outside the keep-recent window is cleared (no low watermark,
    no idle trigger).
    """

    name: str
    settings: MicrocompactSettings = field(default_factory=MicrocompactSettings)
    size_scale: float | None = None
    min_threshold: int = 2_000
    style: Literal["engine", "qwen"] = "engine"


CLAUDE_CODE_NAME = "Claude Code: 5 most recent files (Read, Edit, Write), whole up to its size cut"
CLAUDE_CODE_UNCUT_NAME = "Claude Code without its size cut (as modelled before)"
WITH_HOOK_NAME = "Claude Code + our hook (10,000 characters)"
CODEX_NAME = "Codex: no files (its summary and the user's messages)"
CODEX_WITH_HOOK_NAME = "Codex + our hook (10,000 characters)"
QWEN_CODE_NAME = "Qwen Code: 5 most recent files, whole up to ~5k tokens (measured)"
QWEN_CODE_WITH_HOOK_NAME = "Qwen Code + our hook (24,000 characters)"
GEMINI_CLI_NAME = "Gemini CLI: no files (its summary)"
GEMINI_CLI_WITH_HOOK_NAME = "Gemini CLI + our hook (24,000 characters)"
BEFORE_NAME = "budget 20k, 8k per file, slices only (before gap-fill and outlines)"

SWEEP_GAPS = (0, 5, 10, 15, 20, 30, 50)
"""Gap sizes (lines) the sweep tries (``eval --sweep``)."""
SWEEP_CAPS = (2_000, 5_000, 8_000)
"""Per-file caps the sweep tries them at (20k budget): the smaller the cap, the more files come back as slices."""


def sweep_rankers() -> tuple[RankerSpec, ...]:
    """``eval --sweep``: the product's policy at each per-file cap and gap size, with and without the outline and
    the whole-file rule for a file the agent kept editing (docs/evaluation.md, "Big files": the defaults come from
    this table)."""
    specs: list[RankerSpec] = []
    for cap in SWEEP_CAPS:
        settings = budget(20_000, cap)
        for gap in SWEEP_GAPS:
            excerpts = replace(DEFAULT_EXCERPTS, gap_lines=gap, outline=False, worked_edits=0)
            specs.append(RankerSpec(f"{cap // 1000}k per file, gap {gap}", recency_ranker, settings=settings,
                                    excerpts=excerpts, default=settings == DEFAULT_SETTINGS and gap == 0))  # fmt: skip
        gap = DEFAULT_EXCERPTS.gap_lines
        for outline, worked in ((True, 0), (False, 2), (True, 2), (True, 3)):
            excerpts = replace(DEFAULT_EXCERPTS, outline=outline, worked_edits=worked)
            name = f"{cap // 1000}k per file, gap {gap}" + (", outline" if outline else "")
            name += f", whole if edited {worked}+ times" if worked else ""
            specs.append(RankerSpec(name, recency_ranker, settings=settings, excerpts=excerpts))
    return tuple(specs)


def default_rankers() -> tuple[RankerSpec, ...]:
    ours = DEFAULT_SETTINGS
    return (
        RankerSpec(CLAUDE_CODE_NAME, recency_ranker, slices=False, settings=CLAUDE_CODE_RULE, size_cut=True),
        RankerSpec(
            WITH_HOOK_NAME,
            recency_ranker,
            slices=False,
            settings=CLAUDE_CODE_RULE,
            claude_code_hook=True,
            size_cut=True,
        ),
        RankerSpec(CLAUDE_CODE_UNCUT_NAME, recency_ranker, slices=False, settings=CLAUDE_CODE_RULE),
        RankerSpec(CODEX_NAME, recency_ranker, slices=False, own_files=False),
        RankerSpec(CODEX_WITH_HOOK_NAME, recency_ranker, slices=False, own_files=False, claude_code_hook=True),
        RankerSpec(QWEN_CODE_NAME, recency_ranker, slices=False, settings=CLAUDE_CODE_RULE, qwen_cut=True),
        RankerSpec(
            QWEN_CODE_WITH_HOOK_NAME,
            recency_ranker,
            slices=False,
            settings=CLAUDE_CODE_RULE,
            qwen_cut=True,
            claude_code_hook=True,
            hook_budget=QWEN_BUDGET,
        ),
        RankerSpec(GEMINI_CLI_NAME, recency_ranker, slices=False, own_files=False),
        RankerSpec(
            GEMINI_CLI_WITH_HOOK_NAME,
            recency_ranker,
            slices=False,
            own_files=False,
            claude_code_hook=True,
            hook_budget=GEMINI_BUDGET,
        ),
        RankerSpec("5 most recent files, slices of big ones", recency_ranker),
        RankerSpec("budget 10k, 5k per file", recency_ranker, settings=budget(10_000)),
        RankerSpec("budget 10k, 8k per file", recency_ranker, settings=budget(10_000, 8_000)),
        RankerSpec("budget 20k, 5k per file", recency_ranker, settings=budget(20_000)),
        RankerSpec(BEFORE_NAME, recency_ranker, settings=ours, excerpts=EXCERPTS_BEFORE),
        RankerSpec("budget 20k, 8k per file", recency_ranker, settings=ours, default=True),
        RankerSpec("budget 30k, 8k per file", recency_ranker, settings=budget(30_000, 8_000)),
        RankerSpec("budget 20k, 12k per file", recency_ranker, settings=budget(20_000, 12_000)),
        RankerSpec("default + edits boosted", boosted_ranker(edit_boost=0.5, focus_boost=0.0), settings=ours),
        RankerSpec(
            "default + editor focus boosted",
            boosted_ranker(edit_boost=0.0, focus_boost=0.5),
            settings=ours,
            editor_focus=True,
        ),
        RankerSpec("default, workspace folder only", recency_ranker, settings=ours, workspace_only=True),
        RankerSpec("recency, 2 files", recency_ranker, slices=False, settings=TIGHT_BUDGET),
    )


CLAUDE_CODE_IDLE = MicrocompactSettings(keep_recent=5, idle_minutes=60.0, size_threshold_tokens=-1)
SIZE_ONLY = MicrocompactSettings(keep_recent=5, idle_minutes=-1, size_threshold_tokens=40_000)


def default_micro() -> tuple[MicroSpec, ...]:
    return (
        MicroSpec("none", MicrocompactSettings(idle_minutes=-1, size_threshold_tokens=-1)),
        MicroSpec("Qwen-style size trigger (40k)", SIZE_ONLY, style="qwen"),
        MicroSpec("Claude Code idle rule (60 min, keep 5)", CLAUDE_CODE_IDLE),
        MicroSpec("ours (size 40k to 20k, idle 60 min)"),
        MicroSpec("Qwen-style, size at 1/4 of the session's results", SIZE_ONLY, size_scale=0.25, style="qwen"),
        MicroSpec("ours, size at 1/4 of the session's results", size_scale=0.25),
    )


@dataclass(frozen=True)
class EvalConfig:
    every_turns: int = 5
    """A compaction point every this many assistant turns."""
    token_fractions: tuple[float, ...] = (0.25, 0.5, 0.75)
    """... and where the conversation first reaches these shares of its final size."""
    lookahead_turns: int = 10
    rankers: tuple[RankerSpec, ...] = field(default_factory=default_rankers)
    micro: tuple[MicroSpec, ...] = field(default_factory=default_micro)
    cache_ttl_seconds: float = DEFAULT_TTL_SECONDS
    survival: bool = True
    """Also measure fact survival through repeated compactions (evaluation/survival.py)."""


OFF = MicrocompactSettings(idle_minutes=-1, size_threshold_tokens=-1)
"""Microcompaction off: the plain session the rankers see."""


def micro_settings(spec: MicroSpec, result_tokens: int) -> MicrocompactSettings:
    """The settings ``spec`` means for a session with ``result_tokens`` of tool results (a "qwen" spec's
    session runs with the engine's triggers off; the replay applies its rule)."""
    s = spec.settings
    threshold = s.size_trigger_tokens()
    if spec.size_scale is not None:
        threshold = max(spec.min_threshold, int(result_tokens * spec.size_scale))
    if spec.style == "qwen":
        return MicrocompactSettings(keep_recent=s.keep_recent, idle_minutes=-1, size_threshold_tokens=-1,
                                    compactable_tools=s.compactable_tools)  # fmt: skip
    return MicrocompactSettings(
        keep_recent=s.keep_recent,
        idle_minutes=s.idle_minutes,
        size_threshold_tokens=threshold,
        compactable_tools=s.compactable_tools,
    )


def qwen_threshold(spec: MicroSpec, result_tokens: int) -> int:
    if spec.size_scale is not None:
        return max(spec.min_threshold, int(result_tokens * spec.size_scale))
    return spec.settings.size_trigger_tokens()
