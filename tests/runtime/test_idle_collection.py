"""Full collections wait for the server to be idle (compact_lsp/idle_collection.py)."""

from __future__ import annotations

import gc

from compact_lsp.runtime.idle_collection import IDLE_SECONDS, MAX_YOUNG_PASSES, IdleCollector


class FakeGc:
    def __init__(self) -> None:
        self.threshold = (700, 10, 10)
        self.count = (0, 0, 0)
        self.frozen = 0
        self.full = 0

    def freeze(self) -> None:
        self.frozen += 1

    def get_threshold(self) -> tuple[int, int, int]:
        return self.threshold

    def set_threshold(self, threshold0: int, threshold1: int = 10, threshold2: int = 10, /) -> None:
        self.threshold = (threshold0, threshold1, threshold2)

    def get_count(self) -> tuple[int, int, int]:
        return self.count

    def collect(self, generation: int = 2) -> int:
        self.full += generation == 2
        self.count = (0, 0, 0)
        return 0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_start_freezes_start_up_and_leaves_full_passes_to_idle_moments() -> None:
    fake = FakeGc()
    IdleCollector(fake, Clock()).start()
    assert fake.frozen == 1
    assert fake.threshold == (700, 10, MAX_YOUNG_PASSES)


def test_a_full_pass_runs_only_when_idle_and_something_reached_the_oldest_generation() -> None:
    fake, clock = FakeGc(), Clock()
    collector = IdleCollector(fake, clock, lambda: False)
    fake.count = (5, 3, 4)
    clock.now += IDLE_SECONDS / 2
    assert not collector.tick()  # a frame came too recently
    clock.now += IDLE_SECONDS
    collector.busy()  # another frame: the idle time starts again
    clock.now += IDLE_SECONDS / 2
    assert not collector.tick()
    clock.now += IDLE_SECONDS
    assert collector.tick() and fake.full == 1
    clock.now += 10 * IDLE_SECONDS
    assert not collector.tick()  # nothing new reached the oldest generation
    fake.count = (0, 0, 1)
    assert collector.tick() and fake.full == 2


def test_no_full_pass_while_engine_work_runs_without_frames() -> None:
    """A compaction of 50 sessions reads no frame for seconds: that is not idle."""
    fake, clock, working = FakeGc(), Clock(), [True]
    collector = IdleCollector(fake, clock, lambda: working[0])
    fake.count = (0, 0, 3)
    clock.now += 10 * IDLE_SECONDS
    assert not collector.tick()
    working[0] = False
    clock.now += IDLE_SECONDS / 2
    assert not collector.tick()  # idle since the work ended, not since the last frame
    clock.now += IDLE_SECONDS
    assert collector.tick() and fake.full == 1


def test_it_drives_the_real_collector() -> None:
    before = gc.get_threshold()
    try:
        clock = Clock()
        collector = IdleCollector(gc, clock, lambda: False)
        collector.start()
        assert gc.get_threshold()[2] == MAX_YOUNG_PASSES and gc.get_freeze_count() > 0
        gc.collect(1)  # promotes into the oldest generation
        clock.now += 2 * IDLE_SECONDS
        assert collector.tick()
        assert gc.get_count()[2] == 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
