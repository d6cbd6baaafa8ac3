"""Scoring: what rehydration attached at a compaction point against what the agent went on to read.

Pure functions over small records, so the arithmetic is testable on a hand-made case. Definitions:

- A *re-read* is the first Read (or, for the "needed" figure, Read or Edit) of a file in the K assistant turns
  after the compaction point, of a file the read-file state knew before it (read, written or edited).
- A re-read is a *full hit* when the whole file was attached; a *partial hit* when a slice was attached, and
  then *covering* when the slice holds every line the re-read asked for (a read with offset/limit); a *miss*
  when the file was not attached.
- Miss rate = misses / re-reads. Attached tokens are the file attachments' tokens (plan and skills aside).
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


@dataclass(frozen=True)
class ReRead:
    """The agent's first use of a previously seen file after the compaction point."""

    path: str
    tool: str = "Read"
    offset: int | None = None
    limit: int | None = None
    turns_after: int = 0


@dataclass
class PointScore:
    """One ranker at one compaction point (or a sum of them)."""

    points: int = 0
    rereads: int = 0
    full_hits: int = 0
    partial_covering: int = 0
    partial_short: int = 0
    """Partial hits whose slice does not hold what the re-read asked for."""
    misses: int = 0
    needed: int = 0
    """Re-reads plus first edits of previously seen files (an edit needs the file's text)."""
    needed_misses: int = 0
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
    def miss_rate(self) -> float | None:
        return self.misses / self.rereads if self.rereads else None

    @property
    def needed_miss_rate(self) -> float | None:
        return self.needed_misses / self.needed if self.needed else None

    @property
    def tokens_per_point(self) -> float | None:
        return self.attached_tokens / self.points if self.points else None

    def to_json(self) -> dict[str, float | int | None]:
        data: dict[str, float | int | None] = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(
            partial_hits=self.partial_hits,
            miss_rate=self.miss_rate,
            needed_miss_rate=self.needed_miss_rate,
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


def score_point(attached: Sequence[Attached], rereads: Iterable[ReRead]) -> PointScore:
    """Score one ranker's attachments at one compaction point against the re-reads that followed it."""
    by_path = {a.path: a for a in attached}
    score = PointScore(points=1, attached_files=len(attached), attached_tokens=sum(a.tokens for a in attached))
    used: set[str] = set()
    for use in rereads:
        hit = by_path.get(use.path)
        used.add(use.path)
        score.needed += 1
        if hit is None:
            score.needed_misses += 1
        if use.tool != "Read":
            continue
        score.rereads += 1
        if hit is None:
            score.misses += 1
        elif not hit.partial:
            score.full_hits += 1
        elif slice_covers(hit.lines, use.offset, use.limit):
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
            input_reduction=self.input_reduction,
            saved_per_rewrite=self.saved_per_rewrite,
            reread_rate=self.reread_rate,
        )
        return data
