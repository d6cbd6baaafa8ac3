"""Opens that verify what they opened, under a thread that swaps files and folders in a loop.

A file inside the workspace is swapped, again and again, for a symlink to a secret outside it; a folder for a link
to a folder outside. Meanwhile the server's reader (``compact/readFile``, the agent's ``read_file``), the agent's
``glob`` and its atomic writes run in a loop. No byte of the secret may come back, nothing may be created outside,
no temporary file may be left behind, and every refusal is an answer (``ReadRefused``, ``ToolError``,
``WriteFailed``), never a stray exception. On main the reader checked the realpath, then opened the path again: the
secret came back from ``compact/readFile`` in 40 of 74 answers; writes left ``.t.txt.*.tmp`` files outside.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.runtime.atomic_files import WriteFailed, replace_file
from compact_lsp.tracking.reader import ReadRefused, read_text_file

SECRET = "TOP-SECRET-OUTSIDE-THE-WORKSPACE"
ROUNDS = 400


@contextlib.contextmanager
def swapping(swap: Callable[[], None]) -> Iterator[None]:
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            swap()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)


def swap_file_for_link(path: Path, target: Path) -> Callable[[], None]:
    """Atomically, over and over: ``path`` a regular file, then a symlink to ``target``."""
    regular, link = path.with_name(".regular"), path.with_name(".link")

    def swap() -> None:
        with contextlib.suppress(OSError):
            regular.write_text("just notes\n")
            os.replace(regular, path)
            link.unlink(missing_ok=True)
            link.symlink_to(target)
            os.replace(link, path)

    return swap


def swap_folder_for_link(folder: Path, target: Path) -> Callable[[], None]:
    """Over and over: ``folder`` the real folder, then a symlink to ``target`` in its place."""
    parked = folder.with_name(".parked")

    def swap() -> None:
        with contextlib.suppress(OSError):
            os.rename(folder, parked)
            folder.symlink_to(target, target_is_directory=True)
            folder.unlink()
            os.rename(parked, folder)

    return swap


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    (outside / "notes.md").write_text(f"{SECRET}\n")
    (workspace / "notes.md").write_text("just notes\n")
    return workspace, outside


def test_a_read_never_returns_a_byte_of_a_file_swapped_in_from_outside(layout: tuple[Path, Path]) -> None:
    workspace, outside = layout
    answers = refused = 0
    with swapping(swap_file_for_link(workspace / "notes.md", outside / "secret.txt")):
        for _ in range(ROUNDS):
            try:
                read = read_text_file("notes.md", str(workspace))
            except ReadRefused:
                refused += 1
                continue
            answers += 1
            assert SECRET not in read.content
    assert answers + refused == ROUNDS


def test_a_read_never_returns_a_byte_through_a_folder_swapped_for_a_link_out(layout: tuple[Path, Path]) -> None:
    workspace, outside = layout
    (workspace / "docs").mkdir()
    (workspace / "docs" / "notes.md").write_text("just notes\n")
    with swapping(swap_folder_for_link(workspace / "docs", outside)):
        for _ in range(ROUNDS):
            with contextlib.suppress(ReadRefused):
                assert SECRET not in read_text_file("docs/notes.md", str(workspace)).content


def test_a_write_under_folder_swaps_creates_nothing_outside_and_leaves_no_temporary_file(
    layout: tuple[Path, Path],
) -> None:
    workspace, outside = layout
    (workspace / "docs").mkdir()
    before = sorted(p.name for p in outside.iterdir())
    roots = AllowedRoots.of(str(workspace))
    written = 0
    with swapping(swap_folder_for_link(workspace / "docs", outside)):
        for i in range(ROUNDS):
            try:
                replace_file(str(workspace / "docs" / "t.txt"), f"model text {i}\n", roots=roots)
                written += 1
            except WriteFailed:
                continue
    assert sorted(p.name for p in outside.iterdir()) == before, "a write landed outside the workspace"
    assert (outside / "notes.md").read_text() == f"{SECRET}\n"
    leftovers = [p for p in workspace.rglob("*.tmp")]
    assert leftovers == [], leftovers


def test_a_failed_write_removes_its_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("old\n")
    with pytest.raises(WriteFailed):
        replace_file(str(target), "new \ud800\n")
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]
