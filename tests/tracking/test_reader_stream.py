"""The reader streams: any range of any file reads the same as splitting the whole file, whatever the chunking."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.tracking import reader
from compact_lsp.tracking.reader import ReadRefused, read_text_file

LINES = st.lists(st.text(alphabet="ab\r é", max_size=12), max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines=LINES, last_newline=st.booleans(), offset=st.integers(1, 35), limit=st.integers(1, 35) | st.none(),
       chunk=st.integers(1, 9))  # fmt: skip
def test_any_range_reads_as_the_whole_file_split(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    last_newline: bool,
    offset: int,
    limit: int | None,
    chunk: int,
) -> None:
    root = tmp_path_factory.mktemp("ws")
    text = "\n".join(lines) + ("\n" if last_newline and lines else "")
    (root / "f.txt").write_text(text, encoding="utf-8", newline="")
    whole = text.encode("utf-8").split(b"\n")
    expected_lines = [line + b"\n" for line in whole[:-1]] + ([whole[-1]] if whole[-1] else [])
    total = len(expected_lines)
    reader.READ_CHUNK_BYTES, saved = chunk, reader.READ_CHUNK_BYTES
    try:
        if offset > total and total > 0:
            with pytest.raises(ReadRefused, match="past the end"):
                read_text_file("f.txt", str(root), offset=offset, limit=limit)
            return
        read = read_text_file("f.txt", str(root), offset=offset, limit=limit)
    finally:
        reader.READ_CHUNK_BYTES = saved
    picked = expected_lines[offset - 1 : None if limit is None else offset - 1 + limit]
    assert read.content == b"".join(picked).decode("utf-8").removeprefix("\ufeff" if offset == 1 else "")
    assert (read.num_lines, read.total_lines) == (len(picked), total)


def test_a_long_line_outside_the_range_is_never_held(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"first\n" + b"x" * (3 * 1024 * 1024) + b"\nlast\n")
    read = read_text_file("f.txt", str(tmp_path), offset=1, limit=1, max_bytes=1024 * 1024)
    assert (read.content, read.total_lines) == ("first\n", 3)
    with pytest.raises(ReadRefused, match="over the 1 MiB limit"):
        read_text_file("f.txt", str(tmp_path), offset=2, limit=1, max_bytes=1024 * 1024)
