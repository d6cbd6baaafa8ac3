"""Scoring: what rehydration attached at a compaction point against what the agent went on to need.

Pure functions over small records, so the arithmetic is testable on a hand-made case. Definitions:

- A *need* is the first use, in the K assistant turns after the compaction point, of a file the read-file state
  knew before it (read, written or edited), by a tool that needs its text: a Read, an Edit, a MultiEdit, or a
  Write of an existing file. Every need counts, inside the workspace folder or outside it: a file outside that
  no root admits is a miss like a file left out (``outside_needs`` says how many needs lay outside the folder).
- A need is *met* when the file was attached at all; *strictly met* when what was attached holds what the use
  needed: the whole file, or a slice holding the Read's ``offset``/``limit`` range, or every ``old_string`` of
  the Edit (a Write replaces the file, so only the whole file meets it strictly; so does a Read without a limit).
- The headline is the strict miss rate over needs; the old re-read figure (Reads only) stays as a second figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields


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
    outside_needs: int = 0
    """Needs of files outside the workspace folder; part of ``needed``."""
    outside_misses: int = 0
    """... strictly missed."""
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
    def strict_miss_rate(self) -> float | None:
        return self.strict_misses / self.needed if self.needed else None

    @property
    def tokens_per_point(self) -> float | None:
        return self.attached_tokens / self.points if self.points else None

    def to_json(self) -> dict[str, float | int | None]:
        data: dict[str, float | int | None] = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(
            partial_hits=self.partial_hits,
            miss_rate=self.miss_rate,
            read_strict_miss_rate=self.read_strict_miss_rate,
            needed_miss_rate=self.needed_miss_rate,
            strict_miss_rate=self.strict_miss_rate,
            tokens_per_point=self.tokens_per_point,
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


def strictly_met(hit: Attached, use: ReRead) -> bool:
    """Whether the attachment holds what the use needed (see the module doc)."""
    if not hit.partial:
        return True
    if use.tool == "Read":
        return slice_covers(hit.lines, use.offset, use.limit)
    if use.tool in ("Edit", "MultiEdit"):
        return bool(use.old_strings) and all(old and old in hit.text for old in use.old_strings)
    return False


def score_point(attached: Sequence[Attached], needs: Iterable[ReRead]) -> PointScore:
    """Score one ranker's attachments at one compaction point against the needs that followed it."""
    by_path = {a.path: a for a in attached}
    score = PointScore(points=1, attached_files=len(attached), attached_tokens=sum(a.tokens for a in attached))
    used: set[str] = set()
    for use in needs:
        used.add(use.path)
        hit = by_path.get(use.path)
        strict = hit is not None and strictly_met(hit, use)
        score.needed += 1
        score.needed_misses += hit is None
        score.strict_misses += not strict
        if use.where == "outside":
            score.outside_needs += 1
            score.outside_misses += not strict
        if use.tool != "Read":
            continue
        score.rereads += 1
        if hit is None:
            score.misses += 1
        elif not hit.partial:
            score.full_hits += 1
        elif strict:
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
