"""Scoring arithmetic on hand-made attachments and re-reads, where the answer is known."""

from __future__ import annotations

import pytest

from compact_lsp.evaluation.metrics import Attached, MicroScore, PointScore, ReRead, score_point, slice_covers, verdict


@pytest.mark.parametrize(
    ("label", "offset", "limit", "covers"),
    [
        pytest.param("200-204", 200, 5, True, id="exact-range"),
        pytest.param("1-40,190-260", 200, 5, True, id="inside-second-span"),
        pytest.param("1-40,41-60", 35, 10, True, id="across-adjacent-spans"),
        pytest.param("1-40,50-60", 35, 10, False, id="gap-between-spans"),
        pytest.param("1-40", 38, 5, False, id="runs-past-the-end"),
        pytest.param("1-40", None, 10, True, id="no-offset-means-line-1"),
        pytest.param("1-40", 10, None, False, id="read-to-end-never-covered-by-a-slice"),
        pytest.param(None, 1, 5, False, id="no-label"),
        pytest.param("garbage", 1, 5, False, id="malformed-label"),
    ],
)
def test_slice_covers(label: str | None, offset: int | None, limit: int | None, covers: bool) -> None:
    assert slice_covers(label, offset, limit) is covers


A = "/ws/a.py"
B = "/ws/b.py"
C = "/ws/c.py"


@pytest.mark.parametrize(
    ("attached", "rereads", "expected"),
    [
        pytest.param(
            [Attached(A, 100)], [ReRead(A)],
            {"rereads": 1, "full_hits": 1, "misses": 0, "attached_unused": 0}, id="full-hit",
        ),
        pytest.param(
            [Attached(A, 100)], [ReRead(B)],
            {"rereads": 1, "full_hits": 0, "misses": 1, "attached_unused": 1}, id="miss-and-unused",
        ),
        pytest.param(
            [Attached(A, 100, partial=True, lines="10-20")], [ReRead(A, offset=12, limit=3)],
            {"partial_covering": 1, "partial_short": 0, "misses": 0}, id="partial-covering",
        ),
        pytest.param(
            [Attached(A, 100, partial=True, lines="1-20")], [ReRead(A)],
            {"partial_covering": 0, "partial_short": 1, "misses": 0}, id="partial-short-for-full-read",
        ),
        pytest.param(
            [Attached(A, 100)], [ReRead(B, tool="Edit"), ReRead(A, tool="Edit")],
            {"rereads": 0, "needed": 2, "needed_misses": 1, "misses": 0}, id="edits-count-as-needed-only",
        ),
        pytest.param(
            [], [ReRead(A), ReRead(B), ReRead(C, tool="MultiEdit")],
            {"rereads": 2, "misses": 2, "needed": 3, "needed_misses": 3, "attached_tokens": 0},
            id="nothing-attached",
        ),
    ],
)  # fmt: skip
def test_score_point(attached: list[Attached], rereads: list[ReRead], expected: dict[str, int]) -> None:
    score = score_point(attached, rereads)
    assert score.points == 1
    assert score.attached_files == len(attached)
    assert score.attached_tokens == sum(a.tokens for a in attached)
    for name, value in expected.items():
        assert getattr(score, name) == value, name


SLICE = Attached(
    A, 100, partial=True, lines="10-12", text="<file>\ndef f():\n    return 1\n[... lines 13-90 omitted ...]\n</file>"
)


@pytest.mark.parametrize(
    ("attached", "need", "met", "strict"),
    [
        pytest.param([Attached(A, 100)], ReRead(A, tool="Edit", old_strings=("zzz",)), True, True, id="whole-file"),
        pytest.param([SLICE], ReRead(A, tool="Edit", old_strings=("def f():\n    return 1",)), True, True,
                     id="edit-inside-the-slice"),
        pytest.param([SLICE], ReRead(A, tool="MultiEdit", old_strings=("return 1", "return 2")), True, False,
                     id="one-old-string-not-in-the-slice"),
        pytest.param([SLICE], ReRead(A, tool="Edit", old_strings=("return 1\n\nx",)), True, False,
                     id="old-string-across-an-omission"),
        pytest.param([SLICE], ReRead(A, tool="Write"), True, False, id="write-needs-the-whole-file"),
        pytest.param([SLICE], ReRead(A, offset=10, limit=3), True, True, id="read-inside-the-slice"),
        pytest.param([SLICE], ReRead(A), True, False, id="whole-read-of-a-slice"),
        pytest.param([], ReRead(A, tool="Edit", old_strings=("x",)), False, False, id="not-attached"),
    ],
)  # fmt: skip
def test_strict_needs(attached: list[Attached], need: ReRead, met: bool, strict: bool) -> None:
    score = score_point(attached, [need])
    assert score.needed == 1
    assert score.needed_misses == (not met)
    assert score.strict_misses == (not strict)
    assert score.strict_miss_rate == (0.0 if strict else 1.0)


def test_needs_outside_the_workspace_count_as_hits_or_misses_like_any_other() -> None:
    needs = [ReRead(A), ReRead("/elsewhere/x.py", where="outside"), ReRead("/admitted/y.py", where="outside")]
    score = score_point([Attached(A, 10), Attached("/admitted/y.py", 10)], needs)
    assert (score.needed, score.outside_needs, score.outside_misses) == (3, 2, 1)
    assert score.strict_misses == score.needed_misses == 1


def test_scores_add_up_and_rates_follow() -> None:
    one = score_point([Attached(A, 300)], [ReRead(A), ReRead(B)])
    two = score_point([Attached(B, 100)], [ReRead(B)])
    total = one + two
    assert (total.points, total.rereads, total.misses, total.attached_tokens) == (2, 3, 1, 400)
    assert total.miss_rate == pytest.approx(1 / 3)
    assert total.tokens_per_point == 200
    assert PointScore().miss_rate is None


def test_micro_scores_add_triggers_and_rates() -> None:
    a = MicroScore(sessions=1, rewrites=2, tokens_saved=300, input_tokens_plain=1000, input_tokens_micro=800,
                   cleared_reads=4, cleared_reads_reread=1, by_trigger={"size": 2})  # fmt: skip
    b = MicroScore(sessions=1, rewrites=1, tokens_saved=100, input_tokens_plain=1000, input_tokens_micro=1000,
                   by_trigger={"idle": 1, "size": 0})  # fmt: skip
    total = a + b
    assert total.by_trigger == {"size": 2, "idle": 1}
    assert total.saved_per_rewrite == pytest.approx(400 / 3)
    assert total.input_reduction == pytest.approx(0.1)
    assert total.reread_rate == 0.25


PADDED_WHOLE = Attached(A, 349, unseen=frozenset(range(49, 1288)), total_lines=1287)
"""1,287 lines of which the log showed the first 48: the replay rebuilt it small enough to attach whole."""
PADDED_SLICE = Attached(A, 100, partial=True, lines="1-60", text="<file>\na = 1\n</file>", unseen=frozenset({50}),
                        total_lines=200)  # fmt: skip

SHOWN_SLICE = Attached(A, 9, partial=True, lines="1-5", text="x", total_lines=9)


@pytest.mark.parametrize(
    ("attached", "need", "expected"),
    [
        pytest.param(PADDED_WHOLE, ReRead(A, offset=977, limit=100), "unknown", id="read-of-padding-never-a-hit"),
        pytest.param(PADDED_WHOLE, ReRead(A, offset=10, limit=20), "hit", id="read-of-lines-the-log-showed"),
        pytest.param(PADDED_WHOLE, ReRead(A), "unknown", id="whole-read-of-a-padded-file"),
        pytest.param(PADDED_WHOLE, ReRead(A, tool="Edit", old_strings=("zzz",)), "unknown", id="edit-maybe-in-padding"),
        pytest.param(PADDED_SLICE, ReRead(A, offset=40, limit=20), "unknown", id="slice-holding-a-padded-line"),
        pytest.param(PADDED_SLICE, ReRead(A, offset=1, limit=20), "hit", id="slice-lines-all-shown"),
        pytest.param(PADDED_SLICE, ReRead(A, offset=100, limit=5), "miss", id="slice-lacking-the-lines"),
        pytest.param(PADDED_SLICE, ReRead(A, tool="Edit", old_strings=("a = 1",)), "hit", id="edit-text-attached"),
        pytest.param(SHOWN_SLICE, ReRead(A, tool="Edit", old_strings=("y",)), "miss", id="edit-not-in-a-shown-slice"),
    ],
)
def test_only_lines_the_log_showed_count(attached: Attached, need: ReRead, expected: str) -> None:
    assert verdict(attached, need) == expected
    score = score_point([attached], [need])
    assert (score.needed, score.strict_misses, score.undeterminable) == (1, expected == "miss", expected == "unknown")
    assert score.strict_miss_rate == (None if expected == "unknown" else float(expected == "miss"))
    assert score.strict_miss_rate_worst == float(expected != "hit")


FILE_TEXT = "".join(f"line {n}\n" for n in range(1, 1001))
OUTLINE = ((1, 99), (201, 400), (401, 2600))
"""The outline of a slice of lines 100-200: its last entry is longer than one read shows."""


@pytest.mark.parametrize(
    ("need", "is_located"),
    [
        pytest.param(ReRead("/w/big.py", "Read", offset=250, limit=50), True, id="read-inside-one-entry"),
        pytest.param(ReRead("/w/big.py", "Read", offset=380, limit=50), False, id="read-across-two-entries"),
        pytest.param(ReRead("/w/big.py", "Read", offset=500, limit=100), False, id="entry-longer-than-one-read"),
        pytest.param(ReRead("/w/big.py", "Read"), False, id="whole-file-read"),
        pytest.param(ReRead("/w/big.py", "Edit", old_strings=("line 300\nline 301\n",)), True, id="edit-in-entry"),
        pytest.param(ReRead("/w/big.py", "Edit", old_strings=("not there",)), False, id="edit-text-not-found"),
    ],
)
def test_a_miss_the_outline_points_to_is_located_and_still_a_miss(need: ReRead, is_located: bool) -> None:
    def attached(outline: tuple[tuple[int, int], ...]) -> Attached:
        return Attached("/w/big.py", 900, True, "100-200", "line 150\n", total_lines=3000, outline=outline,
                        outline_tokens=40 if outline else 0)  # fmt: skip

    score = score_point([attached(OUTLINE)], [need], lambda path: FILE_TEXT)
    assert (score.strict_misses, score.located_misses, score.outline_tokens) == (1, int(is_located), 40)
    without = score_point([attached(())], [need], lambda path: FILE_TEXT)
    assert (without.strict_misses, without.located_misses) == (1, 0)
