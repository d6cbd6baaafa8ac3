"""What comes back after a compaction, as a setting: its own module, so that the hooks' rehydration needs none of the
other settings classes (each dataclass costs its generated methods at every import)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from compact_lsp.engine.setting_ranges import DEFAULT_CONTEXT_WINDOW, check_limits, limit, percent, setting, share_of


@dataclass(frozen=True)
class RehydrationSettings:
    """What comes back after a compaction: how many files, within which budget."""

    SECTION: ClassVar[str] = "rehydration"
    max_files: int = field(
        default=50,
        metadata=setting(
            "At most this many files re-attached after compaction (a bound: the token budget decides which).", limit(0)
        ),
    )
    """Deleted-file notices count too."""
    token_budget: int | None = field(
        default=None,
        metadata=setting(
            "Files are re-attached after compaction, best ranked first, until this many tokens; unset: `budgetPercent` "
            "of the context window.",
            limit(0),
        ),
    )
    max_tokens_per_file: int | None = field(
        default=None,
        metadata=setting(
            "A file over this many tokens comes back as the lines the agent read or edited (else its head); unset: "
            "`filePercent` of the context window.",
            limit(0),
        ),
    )
    budget_percent: float = field(
        default=10.0,
        metadata=setting(
            "The re-attached files' budget as a share of the context window, in percent (20k at 200k).",
            percent(),
            more="Why: `docs/evaluation.md`.",
        ),
    )
    file_percent: float = field(
        default=4.0,
        metadata=setting("The per-file cap as a share of the context window, in percent (8k at 200k).", percent()),
    )
    skill_tokens_each: int = field(default=5_000, metadata=limit(0))
    skill_tokens_total: int = field(default=25_000, metadata=limit(0))

    def __post_init__(self) -> None:
        check_limits(self)

    @property
    def budget_tokens(self) -> int:
        """The files' budget in tokens (as resolved by ``for_window``; unresolved: at the default window)."""
        return self.token_budget if self.token_budget is not None else share_of(DEFAULT_CONTEXT_WINDOW,
                                                                                 self.budget_percent)  # fmt: skip

    @property
    def file_cap_tokens(self) -> int:
        if self.max_tokens_per_file is not None:
            return self.max_tokens_per_file
        return share_of(DEFAULT_CONTEXT_WINDOW, self.file_percent)

    def for_window(self, context_window: int, room: int | None = None) -> RehydrationSettings:
        """Concrete token figures for this window; ``room``: what the compaction's target leaves for attachments
        (files first, skills from the rest), so that re-attaching never undoes the compaction."""
        scale = context_window / DEFAULT_CONTEXT_WINDOW
        budget = self.token_budget if self.token_budget is not None else share_of(context_window, self.budget_percent)
        per_file = (
            self.max_tokens_per_file
            if self.max_tokens_per_file is not None
            else share_of(context_window, self.file_percent)
        )
        skills_each = min(self.skill_tokens_each, int(self.skill_tokens_each * scale))
        skills_total = min(self.skill_tokens_total, int(self.skill_tokens_total * scale))
        if room is not None:
            budget = max(0, min(budget, room))
            skills_total = max(0, min(skills_total, room - budget))
        return replace(self, token_budget=budget, max_tokens_per_file=min(per_file, budget) if budget else per_file,
                       skill_tokens_each=min(skills_each, skills_total), skill_tokens_total=skills_total)  # fmt: skip
