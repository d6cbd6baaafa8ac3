"""The directory watcher: only the directories of tracked files, every kind of save, bursts debounced."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from compact_lsp.tracking.watcher import FileWatcher

GUARD = 10.0
"""Only a hang guard: the waits below end on the event, normally within a tenth of a second."""


class Changes:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self.event = asyncio.Event()

    def __call__(self, path: str) -> None:
        self.paths.append(path)
        self.event.set()

    async def next(self) -> str:
        await asyncio.wait_for(self.event.wait(), GUARD)
        self.event.clear()
        return self.paths[-1]


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[FileWatcher, Changes]]:
    changes = Changes()
    watcher = FileWatcher(asyncio.get_running_loop(), changes)
    watcher.start()
    yield watcher, changes
    watcher.stop()


def _write(path: Path) -> None:
    path.write_text("new content\n")


def _append(path: Path) -> None:
    with open(path, "a") as f:
        f.write("more\n")


def _atomic_save(path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp123")
    tmp.write_text("saved atomically\n")
    os.replace(tmp, path)


def _vim_save(path: Path) -> None:
    backup = path.with_name(path.name + "~")
    os.rename(path, backup)
    path.write_text("saved by vim\n")
    backup.unlink()


def _delete(path: Path) -> None:
    path.unlink()


def _move_away(path: Path) -> None:
    path.rename(path.with_name("elsewhere.txt"))


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_write, id="rewrite"),
        pytest.param(_append, id="append"),
        pytest.param(_atomic_save, id="atomic-rename-save"),
        pytest.param(_vim_save, id="vim-backup-save"),
        pytest.param(_delete, id="delete"),
        pytest.param(_move_away, id="move-away"),
    ],
)
async def test_every_kind_of_change_is_reported(
    watched: tuple[FileWatcher, Changes], tmp_path: Path, change: Callable[[Path], None]
) -> None:
    watcher, changes = watched
    target = tmp_path / "tracked.txt"
    target.write_text("original\n")
    real = watcher.track(str(target))
    change(target)
    assert await changes.next() == real


async def test_untracked_neighbours_are_not_reported(watched: tuple[FileWatcher, Changes], tmp_path: Path) -> None:
    watcher, changes = watched
    tracked = tmp_path / "tracked.txt"
    tracked.write_text("a\n")
    real = watcher.track(str(tracked))
    (tmp_path / "neighbour.txt").write_text("not tracked\n")
    tracked.write_text("b\n")  # a change we do expect, after the neighbour's
    assert await changes.next() == real
    assert set(changes.paths) == {real}


async def test_a_burst_is_reported_far_fewer_times_than_it_happened(
    watched: tuple[FileWatcher, Changes], tmp_path: Path
) -> None:
    watcher, changes = watched
    target = tmp_path / "busy.log"
    target.write_text("")
    watcher.track(str(target))
    for i in range(50):
        with open(target, "a") as f:
            f.write(f"line {i}\n")
    await changes.next()
    assert len(changes.paths) < 50


async def test_only_directories_of_tracked_files_are_watched(
    watched: tuple[FileWatcher, Changes], tmp_path: Path
) -> None:
    watcher, _ = watched
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for name in ("a/one.py", "a/two.py", "b/three.py"):
        (tmp_path / name).write_text("x\n")
    watcher.track(str(tmp_path / "a/one.py"))
    watcher.track(str(tmp_path / "a/two.py"))
    watcher.track(str(tmp_path / "b/three.py"))
    real = tmp_path.resolve()
    assert watcher.directories == [str(real / "a"), str(real / "b")]
    watcher.untrack(str(tmp_path / "a/one.py"))
    assert watcher.directories == [str(real / "a"), str(real / "b")]
    watcher.untrack(str(tmp_path / "a/two.py"))
    assert watcher.directories == [str(real / "b")]


async def test_tracking_is_refcounted_per_file(watched: tuple[FileWatcher, Changes], tmp_path: Path) -> None:
    watcher, _ = watched
    target = tmp_path / "shared.py"
    target.write_text("x\n")
    watcher.track(str(target))
    watcher.track(str(target))  # a second session saw it too
    watcher.untrack(str(target))
    assert str(target.resolve()) in watcher.tracked
    watcher.untrack(str(target))
    assert watcher.tracked == frozenset()


async def test_a_missing_directory_does_not_break_tracking(
    watched: tuple[FileWatcher, Changes], tmp_path: Path
) -> None:
    watcher, changes = watched
    watcher.track(str(tmp_path / "gone" / "file.py"))
    target = tmp_path / "here.py"
    target.write_text("x\n")
    real = watcher.track(str(target))
    target.write_text("y\n")
    assert await changes.next() == real


async def test_files_tracked_before_start_are_watched_once_started(tmp_path: Path) -> None:
    changes = Changes()
    watcher = FileWatcher(asyncio.get_running_loop(), changes)
    target = tmp_path / "early.py"
    target.write_text("x\n")
    real = watcher.track(str(target))
    watcher.start()
    try:
        target.write_text("y\n")
        assert await changes.next() == real
    finally:
        watcher.stop()
