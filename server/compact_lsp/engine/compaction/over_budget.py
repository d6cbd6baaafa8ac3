"""A file over its per-file budget at rehydration: whole all the same when the agent worked on it, else cut to an
excerpt of the lines it used (engine/compaction/file_excerpts.py renders it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compact_lsp.engine.compaction.file_excerpts import DEFAULT_EXCERPTS, Excerpt, ExcerptPolicy, render_excerpt

if TYPE_CHECKING:
    from compact_lsp.engine.compaction.file_ranking import FileActivity
    from compact_lsp.engine.conversation.tokens import TokenCounter


def whole_anyway(
    uses: Sequence[dict[str, object]], tokens: int, cap: int, allowed: int, excerpts: ExcerptPolicy
) -> bool:
    """A file over the cap comes back whole all the same: the agent edited it at least ``worked_edits`` times in
    the summarised history, and it fits in ``worked_factor`` times the cap and in what is left of the budget."""
    if excerpts.worked_edits <= 0 or tokens <= min(cap, allowed) or tokens > min(allowed, cap * excerpts.worked_factor):
        return False
    edits = sum(1 for u in uses if "old_string" in u or "edits" in u or "content" in u)
    return edits >= excerpts.worked_edits


def cut_to_budget(
    act: FileActivity,
    content: str,
    *,
    tokens: int,
    allowed: int,
    cap: int,
    counter: TokenCounter,
    dirty: bool,
    policy: ExcerptPolicy = DEFAULT_EXCERPTS,
) -> tuple[Excerpt, int, str]:
    """The excerpt of a file of ``tokens`` over ``min(cap, allowed)``, its tokens, and why it was cut (over one
    file's budget, or over what the files before it left of the total)."""
    budget = min(cap, allowed)
    read_span = act.record.line_span() if act.record is not None and act.record.is_partial else None
    excerpt = render_excerpt(
        act.path, content, uses=act.uses, read_span=read_span, full_tokens=tokens, budget=budget, cap=cap,
        counter=counter, dirty=dirty, policy=policy,
    )  # fmt: skip
    cut_again = budget < cap < tokens  # over one file's budget, and the files before it left less than that
    reason = excerpt.reason + (f", cut to the {allowed} left in the total budget" if cut_again else "")
    return excerpt, counter.count_text(excerpt.rendered), reason
