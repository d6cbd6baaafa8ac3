"""Scoring: what rehydration attached at a compaction point against what the agent went on to need.

Pure functions over small records, so the arithmetic is testable on a hand-made case. Definitions:

- A *need* is the first use, in the K assistant turns after the compaction point, of a file the read-file state
  knew before it (read, written or edited), by a tool that needs its text: a Read, an Edit, a MultiEdit, or a
  Write of an existing file. Every need counts, inside the workspace folder or outside it: a file outside that
  no root admits is a miss like a file left out (``outside_needs`` says how many needs lay outside the folder).
- A need is *met* when the file was attached at all; *strictly met* when what was attached holds what the use
  needed: the whole file, or a slice holding the Read's ``offset``/``limit`` range, or every ``old_string`` of
  the Edit (a Write replaces the file, so only the whole file meets it strictly; so does a Read without a limit).
- Only lines whose text the log showed count. The replay rebuilds files from the log and writes the lines it
  never showed as padding (evaluation/workspace.py); a need whose lines (or, for an Edit not found in what was
  attached, whose attached lines) include padding is *undeterminable*: never a hit, never a miss, counted apart.
- The headline is the strict miss rate over the needs that could be determined; with every undeterminable need
  counted as a miss it is the worst case. The old re-read figure (Reads only) stays as a second figure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields
from typing import Literal

READ_LIMIT_LINES = 2_000
"""Lines one Read returns without a limit (Claude Code's and our agent's): an outline entry longer than this
points to a region no single read shows, so a miss inside it is not "located"."""


@dataclass(frozen=True)
class Attached:
    """One file a ranker's rehydration would attach."""

    path: str
    tokens: int
    partial: bool = False
    lines: str | None = None
    """For a partial attachment: the line ranges shown, "a-b,c-d"."""
    text: str = ""
    """The attachment's text as the model would read it (a slice holds only its lines)."""
    unseen: frozenset[int] = frozenset()
    """Lines of the file the log never showed (written as padding by the replay)."""
    total_lines: int = 0
    """The file's length in the replay (0: unknown)."""
    outline: tuple[tuple[int, int], ...] = ()
    """For a slice with an outline of the rest: each outline entry's line range."""
    outline_tokens: int = 0
    """What the outline costs (part of ``tokens``)."""


@dataclass(frozen=True)
class ReRead:
    """The agent's first use of a previously seen file after the compaction point (a *need*)."""

    path: str
    tool: str = "Read"
    offset: int | None = None
    limit: int | None = None
    turns_after: int = 0
    old_strings: tuple[str, ...] = ()
    """For an Edit or MultiEdit: the text it replaced, which the model must have had."""
    where: str = "workspace"
    """``workspace`` (in the workspace folder) or ``outside`` it."""


@dataclass
class PointScore:
    """One ranker at one compaction point (or a sum of them)."""

    points: int = 0
    needed: int = 0
    """Every need, inside the workspace folder or outside it."""
    needed_misses: int = 0
    """... whose file was not attached at all."""
    strict_misses: int = 0
    """... whose file was not attached, or attached without what the use needed."""
    undeterminable: int = 0
    """Needs met only if padding counted: the lines they needed were never shown by the log (not in
    ``strict_misses``, never a hit)."""
    outside_needs: int = 0
    """Needs of files outside the workspace folder; part of ``needed``."""
    outside_misses: int = 0
    """... strictly missed."""
    located_misses: int = 0
    """Strict misses whose needed lines one outline entry of the slice attached points to (a region a single read
    shows): the model knew where to look, but did not have the lines. Reported apart; never a hit."""
    outline_tokens: int = 0
    """Tokens of the outlines attached (part of ``attached_tokens``)."""
    rereads: int = 0
    """Needs whose first use is a Read (the old headline, kept as a second figure)."""
    misses: int = 0
    full_hits: int = 0
    partial_covering: int = 0
    partial_short: int = 0
    """Re-reads whose attached slice does not hold what the read asked for."""
    attached_files: int = 0
    attached_tokens: int = 0
    attached_unused: int = 0
    """Attached files the agent did not use again within the look-ahead."""

    def __add__(self, other: PointScore) -> PointScore:
        return PointScore(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    @property
    def partial_hits(self) -> int:
        return self.partial_covering + self.partial_short

    @property
    def read_strict_misses(self) -> int:
        return self.misses + self.partial_short

    @property
    def miss_rate(self) -> float | None:
        return self.misses / self.rereads if self.rereads else None

    @property
    def read_strict_miss_rate(self) -> float | None:
        return self.read_strict_misses / self.rereads if self.rereads else None

    @property
    def needed_miss_rate(self) -> float | None:
        return self.needed_misses / self.needed if self.needed else None

    @property
    def determinable(self) -> int:
        return self.needed - self.undeterminable

    @property
    def strict_miss_rate(self) -> float | None:
        """Strict misses over the needs that could be determined (the headline)."""
        return self.strict_misses / self.determinable if self.determinable else None

    @property
    def strict_miss_rate_worst(self) -> float | None:
        """The same with every undeterminable need counted as a miss."""
        return (self.strict_misses + self.undeterminable) / self.needed if self.needed else None

    @property
    def tokens_per_point(self) -> float | None:
        return self.attached_tokens / self.points if self.points else None

    @property
    def outline_tokens_per_point(self) -> float | None:
        return self.outline_tokens / self.points if self.points else None

    def to_json(self) -> dict[str, float | int | None]:
        data: dict[str, float | int | None] = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(
            partial_hits=self.partial_hits,
            miss_rate=self.miss_rate,
            read_strict_miss_rate=self.read_strict_miss_rate,
            needed_miss_rate=self.needed_miss_rate,
            strict_miss_rate=self.strict_miss_rate,
            strict_miss_rate_worst=self.strict_miss_rate_worst,
            tokens_per_point=self.tokens_per_point,
            outline_tokens_per_point=self.outline_tokens_per_point,
        )
        return data


def parse_lines(label: str | None) -> list[tuple[int, int]]:
    """ "1-40,90-120" -> [(1, 40), (90, 120)]; a malformed piece is ignored."""
    spans: list[tuple[int, int]] = []
    for piece in (label or "").split(","):
        first, sep, last = piece.strip().partition("-")
        if sep and first.isdigit() and last.isdigit():
            spans.append((int(first), int(last)))
        elif not sep and first.isdigit():
            spans.append((int(first), int(first)))
    return spans


def slice_covers(label: str | None, offset: int | None, limit: int | None) -> bool:
    """Whether the attached line ranges hold every line a read of ``offset``/``limit`` asks for.

    A read without a limit asks for the file to its end, which a slice never holds (it is partial because
    lines were left out). Offsets are 1-based line numbers, as Claude Code's Read takes them.
    """
    if limit is None or limit <= 0:
        return False
    first = max(1, offset or 1)
    last = first + limit - 1
    spans = sorted(parse_lines(label))
    at = first
    for a, b in spans:
        if a <= at <= b:
            at = b + 1
            if at > last:
                return True
    return False


Verdict = Literal["hit", "miss", "unknown"]


def _needed_lines(hit: Attached, use: ReRead) -> set[int] | None:
    """The lines a Read or a Write needs (None: an Edit, which needs its old strings)."""
    if use.tool in ("Edit", "MultiEdit"):
        return None
    if use.tool == "Read" and use.limit is not None and use.limit > 0:
        first = max(1, use.offset or 1)
        last = first + use.limit - 1
        return set(range(first, min(last, hit.total_lines) + 1 if hit.total_lines else last + 1))
    return set(range(1, hit.total_lines + 1))


def _attached_lines(hit: Attached) -> set[int]:
    if not hit.partial:
        return set(range(1, hit.total_lines + 1))
    return {n for a, b in parse_lines(hit.lines) for n in range(a, b + 1)}


def verdict(hit: Attached | None, use: ReRead) -> Verdict:
    """Whether the attachment holds what the use needed (see the module doc), counting only lines the log
    showed: ``unknown`` when the answer rests on padding."""
    if hit is None:
        return "miss"
    needed = _needed_lines(hit, use)
    if needed is None:
        if use.old_strings and all(old and old in hit.text for old in use.old_strings):
            return "hit"
        if not hit.partial and not hit.unseen:
            return "hit"  # the whole file, every line of it seen: the model had all there was
        return "unknown" if _attached_lines(hit) & hit.unseen else "miss"
    if hit.partial and not (use.tool == "Read" and slice_covers(hit.lines, use.offset, use.limit)):
        return "miss"
    return "unknown" if needed & hit.unseen else "hit"


def located(hit: Attached | None, use: ReRead, text: str | None) -> bool:
    """Whether an outline entry of the slice attached points to every line the use needed: a Read's range, or
    the lines of the file (``text``, as it was at the point) holding each of an Edit's old strings. A Read of the
    whole file or a Write needs the whole file: no entry points to that."""
    if hit is None or not hit.outline:
        return False
    if use.tool in ("Edit", "MultiEdit"):
        if text is None or not use.old_strings:
            return False
        wanted: list[int] = []
        for old in use.old_strings:
            at = text.find(old) if old else -1
            if at < 0:
                return False
            first = text.count("\n", 0, at) + 1
            wanted += [first, first + old.count("\n")]
    elif use.tool == "Read" and use.limit is not None and use.limit > 0:
        first = max(1, use.offset or 1)
        last = first + use.limit - 1
        wanted = [first, min(last, hit.total_lines) if hit.total_lines else last]
    else:
        return False
    low, high = min(wanted), max(wanted)
    return any(a <= low and high <= b and b - a < READ_LIMIT_LINES for a, b in hit.outline)


def score_point(
    attached: Sequence[Attached], needs: Iterable[ReRead], file_text: Callable[[str], str | None] | None = None
) -> PointScore:
    """Score one ranker's attachments at one compaction point against the needs that followed it; ``file_text``
    gives a file's text at the point (to place an Edit's old strings for ``located``)."""
    by_path = {a.path: a for a in attached}
    score = PointScore(
        points=1,
        attached_files=len(attached),
        attached_tokens=sum(a.tokens for a in attached),
        outline_tokens=sum(a.outline_tokens for a in attached),
    )
    used: set[str] = set()
    for use in needs:
        used.add(use.path)
        hit = by_path.get(use.path)
        judged = verdict(hit, use)
        score.needed += 1
        score.needed_misses += hit is None
        score.strict_misses += judged == "miss"
        score.undeterminable += judged == "unknown"
        if judged == "miss" and hit is not None and hit.outline:
            score.located_misses += located(hit, use, file_text(use.path) if file_text is not None else None)
        if use.where == "outside":
            score.outside_needs += 1
            score.outside_misses += judged == "miss"
        if use.tool != "Read" or judged == "unknown":
            continue
        score.rereads += 1
        if hit is None:
            score.misses += 1
        elif not hit.partial:
            score.full_hits += 1
        elif judged == "hit":
            score.partial_covering += 1
        else:
            score.partial_short += 1
    score.attached_unused = sum(1 for a in attached if a.path not in used)
    return score


@dataclass
class MicroScore:
    """Microcompaction over one session (or a sum of them) under one configuration."""

    sessions: int = 0
    rewrites: int = 0
    """Microcompactions that rewrote history: each breaks the prompt cache from the first cleared result."""
    tokens_saved: int = 0
    """Tokens removed by the rewrites (at the moment of each rewrite)."""
    input_tokens_plain: int = 0
    """Sum over the model's turns of the context it was sent, without microcompaction."""
    input_tokens_micro: int = 0
    """The same with microcompaction."""
    cleared_results: int = 0
    cleared_reads: int = 0
    cleared_reads_reread: int = 0
    """Cleared Read results whose file the agent read again later in the session."""
    cleared_reads_reread_soon: int = 0
    """... within the look-ahead (K assistant turns)."""
    cache_read: int = 0
    """Prompt tokens served from the prompt cache (billed at 0.1), summed over the model's turns."""
    cache_write: int = 0
    """Prompt tokens written to the cache (billed at 1.25): what is new since the last request, everything
    after a rewritten message, and the whole prompt when the cache has expired."""
    uncached: int = 0
    """Prompt tokens billed at 1.0 (none in this model: every request ends with a cache breakpoint)."""
    by_trigger: dict[str, int] = field(default_factory=dict)

    def __add__(self, other: MicroScore) -> MicroScore:
        out = MicroScore(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name != "by_trigger"}
        )
        for source in (self.by_trigger, other.by_trigger):
            for key, value in source.items():
                out.by_trigger[key] = out.by_trigger.get(key, 0) + value
        return out

    @property
    def billed(self) -> float:
        """Billed input token-equivalents: uncached 1.0, cache write 1.25, cache read 0.1."""
        return self.uncached + 1.25 * self.cache_write + 0.1 * self.cache_read

    @property
    def input_reduction(self) -> float | None:
        """Share of the input tokens (summed over turns) that microcompaction saved."""
        if not self.input_tokens_plain:
            return None
        return 1 - self.input_tokens_micro / self.input_tokens_plain

    @property
    def saved_per_rewrite(self) -> float | None:
        return self.tokens_saved / self.rewrites if self.rewrites else None

    @property
    def reread_rate(self) -> float | None:
        return self.cleared_reads_reread / self.cleared_reads if self.cleared_reads else None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(
            billed=self.billed,
            input_reduction=self.input_reduction,
            saved_per_rewrite=self.saved_per_rewrite,
            reread_rate=self.reread_rate,
        )
        return data
