"""The memory indexes kept between reads: read once while the file is the same, every change seen at once, and
never an answer the uncached containment check would refuse (symlinks swapped in under a kept index)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from compact_lsp.engine.files import memory as memory_module
from compact_lsp.engine.files.memory import ManagedMemory
from compact_lsp.engine.files.memory_index import SETTLE_NS, IndexCache, MemoryIndex, RootKind


def later() -> int:
    """A clock past the settling time of every file the test writes: kept indexes are trusted at once."""
    return time.time_ns() + 10 * SETTLE_NS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "memory" / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("- secret\n")
    (tmp_path / "memory" / "MEMORY.md").write_text("- first\n")
    return tmp_path / "memory"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths memory read from disk (the uncached way), in order."""
    seen: list[str] = []
    real = memory_module.read_index

    def counting(path: str, kind: RootKind) -> MemoryIndex | None:
        seen.append(path)
        return real(path, kind)

    monkeypatch.setattr(memory_module, "read_index", counting)
    return seen


def settled_memory(root: Path) -> ManagedMemory:
    memory = ManagedMemory(project_root=str(root))
    memory.indexes = IndexCache(clock=later)
    return memory


def text_of(memory: ManagedMemory) -> str | None:
    index = memory.load_index("project")
    return None if index is None else index.text


def test_an_unchanged_index_is_read_once(root: Path, reads: list[str]) -> None:
    memory = settled_memory(root)
    for _ in range(5):
        assert text_of(memory) == "- first"
        assert "- first" in memory.system_prompt_section()
    assert reads == [str(root / "MEMORY.md")]


def test_a_just_written_index_is_read_again_until_it_settles(root: Path, reads: list[str]) -> None:
    """Its timestamp may not move for a write in the same tick: same size, same stamp, other text."""
    memory = ManagedMemory(project_root=str(root))
    text_of(memory)
    (root / "MEMORY.md").write_text("- other\n")  # the same size, at once
    assert text_of(memory) == "- other"
    assert len(reads) == 2


def _rewrite(root: Path, outside: Path) -> None:
    (root / "MEMORY.md").write_text("- rewritten, longer\n")


def _replace(root: Path, outside: Path) -> None:
    (root / ".MEMORY.md.tmp").write_text("- second\n")  # the same size, renamed over it (how `remember` writes)
    os.replace(root / ".MEMORY.md.tmp", root / "MEMORY.md")


def _delete(root: Path, outside: Path) -> None:
    (root / "MEMORY.md").unlink()


def _link_out(root: Path, outside: Path) -> None:
    (root / "MEMORY.md").unlink()
    os.symlink(outside / "secret.md", root / "MEMORY.md")


def _link_inside_then_out(root: Path, outside: Path) -> None:
    """Set up by ``_linked_inside``: the link itself is swapped for one that leads out."""
    os.replace(root / "MEMORY.md", root / "old-link")
    os.symlink(outside / "secret.md", root / "MEMORY.md")


def _folder_on_the_way_out(root: Path, outside: Path) -> None:
    """Set up by ``_linked_inside``: the link stays, the folder it goes through now leads out, to a hard link of the
    very same file (same inode, same stamps: only the realpath tells)."""
    os.rename(root / "sub", root / "sub.old")
    os.symlink(outside / "moved", root / "sub")


def _linked_inside(root: Path, outside: Path) -> None:
    (root / "MEMORY.md").unlink()
    (root / "sub" / "index.md").write_text("- first\n")
    os.symlink("sub/index.md", root / "MEMORY.md")
    (outside / "moved").mkdir()
    os.link(root / "sub" / "index.md", outside / "moved" / "index.md")


def _as_is(root: Path, outside: Path) -> None:
    pass


Change = Callable[[Path, Path], None]


@pytest.mark.parametrize(
    ("setup", "change", "expected"),
    [
        pytest.param(_as_is, _rewrite, "- rewritten, longer", id="rewritten"),
        pytest.param(_as_is, _replace, "- second", id="renamed-over"),
        pytest.param(_as_is, _delete, None, id="deleted"),
        pytest.param(_as_is, _link_out, None, id="swapped-for-a-link-out"),
        pytest.param(_linked_inside, _link_inside_then_out, None, id="link-swapped-for-one-out"),
        pytest.param(_linked_inside, _folder_on_the_way_out, None, id="folder-on-the-way-swapped-out"),
    ],
)
def test_a_change_is_seen_at_once_even_when_kept(
    root: Path, setup: Change, change: Change, expected: str | None, reads: list[str]
) -> None:
    outside = root.parent / "outside"
    setup(root, outside)
    memory = settled_memory(root)
    assert text_of(memory) == "- first"
    assert text_of(memory) == "- first"
    assert len(reads) == 1  # kept
    change(root, outside)
    assert text_of(memory) == expected
    section = memory.system_prompt_section()
    assert section == "" if expected is None else expected in section
    assert text_of(ManagedMemory(project_root=str(root))) == expected  # what the uncached way says


def test_an_index_linked_out_is_refused_every_time_and_taken_once_back_inside(root: Path) -> None:
    _link_out(root, root.parent / "outside")
    memory = settled_memory(root)
    assert text_of(memory) is None
    assert text_of(memory) is None
    (root / "MEMORY.md").unlink()
    (root / "MEMORY.md").write_text("- back\n")
    assert text_of(memory) == "- back"
