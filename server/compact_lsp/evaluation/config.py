"""What an evaluation compares: the rehydration rankers, the microcompaction configurations, the points."""

from __future__ import annotations

from dataclasses import dataclass, field

from compact_lsp.engine.file_ranking import Ranker, boosted_ranker, recency_ranker
from compact_lsp.engine.settings import MicrocompactSettings, RehydrationSettings

CLAUDE_CODE_BUDGET = RehydrationSettings(max_files=5, token_budget=50_000, max_tokens_per_file=5_000)
TIGHT_BUDGET = RehydrationSettings(max_files=2, token_budget=10_000, max_tokens_per_file=5_000)


@dataclass(frozen=True)
class RankerSpec:
    """One rehydration policy under test."""

    name: str
    ranker: Ranker
    slices: bool = True
    """Give rehydration the summarised history, so a big file comes back as the lines read or edited
    (False: it comes back as its head, as a plain truncation would)."""
    settings: RehydrationSettings = CLAUDE_CODE_BUDGET


@dataclass(frozen=True)
class MicroSpec:
    """One microcompaction configuration; ``size_scale`` sets the size threshold to that share of the
    session's tool-result tokens (sessions in logs are small beside the 40k default)."""

    name: str
    settings: MicrocompactSettings = field(default_factory=MicrocompactSettings)
    size_scale: float | None = None
    min_threshold: int = 2_000


def default_rankers() -> tuple[RankerSpec, ...]:
    return (
        RankerSpec("recency (Claude Code / Qwen)", recency_ranker, slices=False),
        RankerSpec("recency + slices", recency_ranker),
        RankerSpec("boosted: edits", boosted_ranker(edit_boost=0.5, focus_boost=0.0)),
        RankerSpec("boosted: frequency", boosted_ranker(edit_boost=0.0, focus_boost=0.0, frequency=0.5)),
        RankerSpec("boosted: edits + frequency", boosted_ranker(edit_boost=0.5, focus_boost=0.0, frequency=0.5)),
        RankerSpec("recency, 2 files", recency_ranker, slices=False, settings=TIGHT_BUDGET),
        RankerSpec(
            "boosted: edits + frequency, 2 files",
            boosted_ranker(edit_boost=0.5, focus_boost=0.0, frequency=0.5),
            settings=TIGHT_BUDGET,
        ),
    )


def default_micro() -> tuple[MicroSpec, ...]:
    return (
        MicroSpec("defaults (size 40k, idle 60 min)"),
        MicroSpec("size at 1/4 of the session's results", size_scale=0.25),
        MicroSpec("size at 1/8 of the session's results", size_scale=0.125),
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


OFF = MicrocompactSettings(idle_minutes=-1, size_threshold_tokens=-1)
"""Microcompaction off: the plain session the rankers see."""


def micro_settings(spec: MicroSpec, result_tokens: int) -> MicrocompactSettings:
    """The settings ``spec`` means for a session with ``result_tokens`` of tool results."""
    if spec.size_scale is None:
        return spec.settings
    threshold = max(spec.min_threshold, int(result_tokens * spec.size_scale))
    s = spec.settings
    return MicrocompactSettings(
        keep_recent=s.keep_recent,
        idle_minutes=s.idle_minutes,
        size_threshold_tokens=threshold,
        compactable_tools=s.compactable_tools,
    )
