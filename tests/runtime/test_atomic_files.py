"""replace_file: the agent's writes are all or nothing and keep the file's mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_lsp.runtime.atomic_files import WriteFailed, replace_file


def test_a_new_file_gets_the_umask_mode_not_mkstemps(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        replace_file(str(tmp_path / "sub" / "new.txt"), "hello\n")
    finally:
        os.umask(old)
    assert (tmp_path / "sub" / "new.txt").read_text() == "hello\n"
    assert (tmp_path / "sub" / "new.txt").stat().st_mode & 0o777 == 0o640


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("old\n")
    target.chmod(0o751)
    replace_file(str(target), "new\n")
    assert target.read_text() == "new\n" and target.stat().st_mode & 0o777 == 0o751


def test_a_failed_write_leaves_the_target_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("old\n")
    with pytest.raises(WriteFailed, match="the file is unchanged"):
        replace_file(str(target), "\ud800")  # an unencodable text: fails before anything is written
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
