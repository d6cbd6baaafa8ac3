"""Rehydration that stops when its budget is spent chooses exactly what ranking and reading every file chose.

Each seeded random session mixes reads (whole and partial), writes, edits, open and dirty documents, deleted files,
files outside the roots, denied ones, skills, pins (some never read), tiny and big files, a clock that sometimes
stands still or goes back; the old way (``file_activities`` ranks every file, every one is looked at) is the
reference, kept below as it was.
"""

from __future__ import annotations

import itertools
import os
import random
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from compact_lsp.engine.compaction.file_excerpts import MIN_PARTIAL_TOKENS
from compact_lsp.engine.compaction.file_ranking import (
    FileActivity,
    boosted_ranker,
    file_activities,
    is_skill_path,
    recency_ranker,
    resolved_roots,
)
from compact_lsp.engine.compaction.ranked_files import ranked_files
from compact_lsp.engine.compaction.rehydration import LISTED_PAST_BUDGET, Candidate, _pack_one, rehydrate
from compact_lsp.engine.compaction.skills import SkillFile, skills_from_read_state
from compact_lsp.engine.conversation.messages import Attachment
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.read_order import ReadOrder
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.rehydration_settings import RehydrationSettings

SEEDS = range(16)


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


@dataclass
class Session:
    root: Path
    state: ReadFileState
    denied: frozenset[str]
    pinned: tuple[str, ...]
    settings: RehydrationSettings


def lines(n: int, tag: str) -> str:
    return "".join(f"{tag}_{i} = compute_value({i}, scale=2)  # step {i}\n" for i in range(n))


def random_session(tmp_path: Path, seed: int, counter: TiktokenCounter, *, time_travel: bool) -> Session:
    rnd = random.Random(seed)
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    now = itertools.count(1_000)
    last = [999.0]

    def clock() -> float:  # stands still now and then (ties); with time_travel, sometimes goes back
        if rnd.random() < 0.25:
            return last[0]
        last[0] = float(next(now))
        return last[0] - rnd.choice((3, 50)) if time_travel and rnd.random() < 0.2 else last[0]

    state = ReadFileState(capacity=rnd.choice((64, 4096)), cwd=str(root), counter=counter, clock=clock)
    skills = ["skills/pdf/SKILL.md", "skills/xlsx/SKILL.md", "notes/SKILL.md"]  # the last one is not a skill
    names = [f"pkg{i % 7}/m{i}.py" for i in range(rnd.randint(20, 160))] + skills
    for step in range(rnd.randint(30, 400)):
        name = rnd.choice(names)
        base = outside if rnd.random() < 0.05 else root
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = lines(rnd.choice((0, 1, 2, 5, 30, 80, 900)), f"s{step}")
        action = rnd.random()
        if action < 0.55:
            path.write_text(text)
            if rnd.random() < 0.2:
                state.record_read(str(path), text[:400], start_line=1, num_lines=5, total_lines=text.count("\n"))
            else:
                state.record_read(str(path), text)
        elif action < 0.65:
            path.write_text(text)
            state.record_write(str(path), content=text if rnd.random() < 0.8 else None)
        elif action < 0.72:
            state.record_edit(str(path))
        elif action < 0.85:
            path.write_text(text)
            state.open_document(str(path), text + ("# unsaved\n" if rnd.random() < 0.3 else ""), step)
            if rnd.random() < 0.3:
                state.change_document(str(path), text + "# changed\n", step + 1)
        elif action < 0.92:
            state.focus_document(str(path))
        elif path.exists():
            path.unlink()
    every = [str(root / n) for n in names]
    denied = frozenset(rnd.sample(every, k=min(3, len(every))))
    pinned = tuple(os.path.realpath(p) for p in rnd.sample(every, k=rnd.choice((0, 0, 1, 3))) if os.path.exists(p))
    settings = RehydrationSettings(
        max_files=rnd.choice((2, 5, 50)),
        token_budget=rnd.choice((0, 150, 1_500, 6_000, 20_000)),
        max_tokens_per_file=rnd.choice((300, 2_000, 8_000)),
    )
    return Session(root, state, denied, pinned, settings)


def old_rehydrated_files(s: Session, counter: TiktokenCounter) -> tuple[list[Attachment], list[Candidate]]:
    """The packing as it was before it stopped at the budget: every file ranked, every one looked at."""
    roots = [str(s.root)]
    ranked = file_activities(s.state, roots, denied_paths=s.denied, ranker=recency_ranker, pinned=s.pinned)
    reader, real_roots = gated_reader(AllowedRoots.of(*roots)), resolved_roots(roots)
    denied = {os.path.realpath(p) for p in s.denied}
    attachments: list[Attachment] = []
    candidates: list[Candidate] = []
    tokens = 0
    for item in ranked:
        act = item.activity
        estimate = act.record.tokens if act.record is not None else 0
        if item.excluded is not None:
            candidates.append(Candidate(act.path, item.score, estimate, False, item.excluded))
            continue
        if len(attachments) >= s.settings.max_files:
            candidates.append(
                Candidate(act.path, item.score, estimate, False, f"beyond the {s.settings.max_files}-file limit")
            )
            continue
        allowed = s.settings.budget_tokens - tokens
        if estimate > allowed < MIN_PARTIAL_TOKENS:
            reason = f"about {estimate} tokens when last read; only {max(allowed, 0)} left in the total budget"
            candidates.append(Candidate(act.path, item.score, estimate, False, reason))
            continue
        packed = _pack_one(
            item, allowed=allowed, cap=s.settings.file_cap_tokens, counter=counter, read_text=reader, haystack="",
            real_roots=real_roots, denied=denied,
        )  # fmt: skip
        candidate = packed.candidate
        candidates.append(replace(candidate, reason=f"pinned; {candidate.reason}") if item.pinned else candidate)
        if packed.attachment is not None:
            attachments.append(packed.attachment)
            tokens += candidate.tokens
    return attachments, candidates


def described(activity: FileActivity) -> tuple[object, ...]:
    return (activity.realpath, activity.path, activity.last_seen, activity.record, activity.document, activity.edited,
            activity.focus_rank, tuple(activity.uses))  # fmt: skip


@pytest.mark.parametrize("time_travel", [pytest.param(False, id="clock-forward"), pytest.param(True, id="clock-back")])
@pytest.mark.parametrize("seed", SEEDS)
def test_taking_candidates_one_by_one_gives_the_full_ranking(
    tmp_path: Path, counter: TiktokenCounter, seed: int, time_travel: bool
) -> None:
    s = random_session(tmp_path, seed, counter, time_travel=time_travel)
    roots = [str(s.root)]
    full = file_activities(s.state, roots, denied_paths=s.denied, ranker=recency_ranker, pinned=s.pinned)
    lazy = ranked_files(s.state, roots, denied_paths=s.denied, ranker=recency_ranker, pinned=s.pinned)
    taken = []
    while (entry := lazy.next_entry()) is not None:
        taken.append(lazy.make(entry))
    assert lazy.total == len(full)
    assert [(described(r.activity), r.score, r.excluded, r.pinned) for r in taken] == [
        (described(r.activity), r.score, r.excluded, r.pinned) for r in full
    ]


@pytest.mark.parametrize("listed_past", [0, 3, LISTED_PAST_BUDGET], ids=lambda n: f"list-{n}-past")
@pytest.mark.parametrize("time_travel", [pytest.param(False, id="clock-forward"), pytest.param(True, id="clock-back")])
@pytest.mark.parametrize("seed", SEEDS)
def test_stopping_at_the_budget_chooses_the_same_files(
    tmp_path: Path,
    counter: TiktokenCounter,
    seed: int,
    time_travel: bool,
    listed_past: int,
) -> None:
    s = random_session(tmp_path, seed, counter, time_travel=time_travel)
    old_attachments, old_candidates = old_rehydrated_files(s, counter)
    new = rehydrate(
        read_state=s.state, kept_messages=[], settings=s.settings, counter=counter, workspace_roots=[str(s.root)],
        plan=None, denied_paths=s.denied, pinned=s.pinned, listed=listed_past,
    )  # fmt: skip
    assert new.attachments == old_attachments
    old_by_path = {c.path: c for c in old_candidates}
    assert [c.path for c in old_candidates if c.path in {n.path for n in new.candidates}] == [
        c.path for c in new.candidates
    ]  # listed in the same order
    assert all(c == old_by_path[c.path] for c in new.candidates)  # each listed with the same figures and reason
    listed = {c.path for c in new.candidates}
    assert not any(c.included for c in old_candidates if c.path not in listed)
    assert len(new.candidates) + new.unlisted == len(old_candidates)


@pytest.mark.parametrize("seed", range(6))
def test_any_other_ranker_still_scores_every_file(tmp_path: Path, counter: TiktokenCounter, seed: int) -> None:
    s = random_session(tmp_path, seed, counter, time_travel=True)
    ranker = boosted_ranker(edit_boost=0.5, focus_boost=0.5, frequency=0.2)
    roots = [str(s.root)]
    full = file_activities(s.state, roots, denied_paths=s.denied, ranker=ranker, pinned=s.pinned)
    lazy = ranked_files(s.state, roots, denied_paths=s.denied, ranker=ranker, pinned=s.pinned)
    taken = []
    while (entry := lazy.next_entry()) is not None:
        taken.append(lazy.make(entry))
    assert taken == full


@pytest.mark.parametrize("seed", range(8))
def test_skills_are_found_without_passing_every_record(tmp_path: Path, counter: TiktokenCounter, seed: int) -> None:
    s = random_session(tmp_path, seed, counter, time_travel=seed % 2 == 1)
    roots = AllowedRoots.of(str(s.root), str(tmp_path / "outside"))
    reader = gated_reader(roots)
    expected = []  # the scan of every record it replaces
    for record in s.state.ranked():
        if is_skill_path(record.realpath) and record.error is None and record.realpath not in s.denied:
            try:
                expected.append(SkillFile(record.resolved_path, reader(record.realpath).decode("utf-8")))
            except OSError:
                continue
    assert skills_from_read_state(s.state, roots=roots, denied_paths=s.denied) == expected


def test_the_read_order_knows_time_order_and_size_classes(tmp_path: Path) -> None:
    times = iter([5.0, 6.0, 6.0, 4.0])
    state = ReadFileState(cwd=str(tmp_path), clock=lambda: next(times), capacity=2)
    state.record_read("a.py", lines(40, "a"))  # ~400 tokens
    state.record_read("b.py", lines(40, "b"))
    assert state.order.time_ordered and not state.order.may_hold(200) and state.order.may_hold(1_000)
    state.record_read("c.py", "x = 1\n")  # evicts a.py; tiny
    assert state.order.may_hold(10) and state.order.time_ordered
    state.record_read("b.py", "y = 2\n")  # replaces b's record, read at 4.0: the clock went back
    assert not state.order.time_ordered
    assert not state.order.may_hold(2) and state.order.may_hold(10)
    assert ReadOrder().may_hold(0) is False
