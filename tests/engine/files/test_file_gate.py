"""The file gate (engine/files/file_gate.py): every file the server re-reads on its own passes it or is refused."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.files.file_gate import (
    AllowedRoots,
    FileTooLarge,
    GateRefused,
    NotRegularFile,
    OutsideRoots,
    read_gated,
)
from compact_lsp.engine.files.memory_index import read_index
from compact_lsp.engine.files.plan_state import plan_from_file


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "outside.txt").write_text("SECRET\n")
    (tmp_path / "ws" / "ok.txt").write_text("fine\n")
    return tmp_path / "ws"


def _escape(root: Path) -> Path:
    (root / "f").symlink_to(root.parent / "outside.txt")
    return root / "f"


def _fifo(root: Path) -> Path:
    os.mkfifo(root / "f")
    return root / "f"


def _dev_zero(root: Path) -> Path:
    (root / "f").symlink_to("/dev/zero")
    return root / "f"


def _dir(root: Path) -> Path:
    (root / "f").mkdir()
    return root / "f"


def _dotdot(root: Path) -> Path:
    (root / "sub").mkdir()
    return root / "sub" / ".." / ".." / "outside.txt"


@pytest.mark.parametrize(
    ("make", "refusal", "roots_of"),
    [
        pytest.param(_escape, OutsideRoots, lambda r: [r], id="symlink-escape"),
        pytest.param(_dotdot, OutsideRoots, lambda r: [r], id="dotdot"),
        pytest.param(_dev_zero, OutsideRoots, lambda r: [r], id="symlink-to-dev-zero"),
        pytest.param(_dev_zero, NotRegularFile, lambda r: [r, "/dev"], id="device-inside-a-root"),
        pytest.param(_fifo, NotRegularFile, lambda r: [r], id="fifo"),
        pytest.param(_dir, NotRegularFile, lambda r: [r], id="directory"),
        pytest.param(lambda r: r / "ok.txt", OutsideRoots, lambda r: [], id="no-roots-admit-nothing"),
    ],
)
def test_refusals(root: Path, make: Callable[[Path], Path], refusal: type[GateRefused], roots_of: Callable) -> None:
    path = make(root)
    roots = AllowedRoots.of(*(str(r) for r in roots_of(root)))
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            read_gated(str(path), roots)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=read, daemon=True)  # a FIFO open that blocks must not hang the test run
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "the gate blocked"
    assert len(outcome) == 1 and isinstance(outcome[0], refusal), outcome


def test_a_regular_file_inside_is_read(root: Path) -> None:
    assert read_gated(str(root / "ok.txt"), AllowedRoots.of(str(root))) == b"fine\n"


def test_size_cap(root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 2000)
    with pytest.raises(FileTooLarge):
        read_gated(str(root / "big.txt"), AllowedRoots.of(str(root)), max_bytes=1000)
    assert len(read_gated(str(root / "big.txt"), AllowedRoots.of(str(root)), max_bytes=2000)) == 2000


def test_roots_compare_by_path_component(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory2").mkdir()
    (tmp_path / "memory2" / "x.md").write_text("x\n")
    with pytest.raises(OutsideRoots):
        read_gated(str(tmp_path / "memory2" / "x.md"), AllowedRoots.of(str(tmp_path / "memory")))


def test_a_fifo_memory_index_does_not_block(root: Path) -> None:
    os.mkfifo(root / "MEMORY.md")
    done = threading.Event()
    result: list[object] = []
    threading.Thread(target=lambda: (result.append(read_index(str(root / "MEMORY.md"), "project")), done.set()),
                     daemon=True).start()  # fmt: skip
    assert done.wait(5), "reading a FIFO index blocked"
    assert result == [None]


def test_a_plan_file_swapped_for_a_link_out_is_not_used(root: Path) -> None:
    (root / "PLAN.md").symlink_to(root.parent / "outside.txt")
    assert plan_from_file(str(root / "PLAN.md")) is None


def test_importing_a_fifo_named_by_mistake_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "session.jsonl")
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            import_claude_code(tmp_path / "session.jsonl")
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "importing a FIFO blocked"
    assert isinstance(outcome[0], ValueError) and "a FIFO" in str(outcome[0])
