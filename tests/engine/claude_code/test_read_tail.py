"""``read_tail``: the transcript from the line of the n-th boundary from its end, whatever the chunking, and as
it answered when it read the file back a chunk at a time (before it mapped the file)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compact_lsp.engine.claude_code import compaction_view
from compact_lsp.engine.claude_code.compaction_view import read_tail

BOUNDARY = json.dumps({"type": "system", "subtype": "compact_boundary", "parentUuid": None})


def _expected(data: bytes, boundaries: int) -> bytes:
    """The reference: split into lines, count boundary lines from the end."""
    starts, offset = [], 0
    for line in data.split(b"\n"):
        if line == BOUNDARY.encode():
            starts.append(offset)
        offset += len(line) + 1
    return data[starts[-boundaries] :] if len(starts) >= boundaries else data


def _transcript(rng: random.Random, lines: int) -> bytes:
    out = []
    for _ in range(lines):
        if rng.random() < 0.05:
            out.append(BOUNDARY)
        else:  # some lines mention the mark in their text without being a boundary
            text = "x" * rng.randrange(0, 300) + ('"compact_boundary"' if rng.random() < 0.05 else "")
            out.append(json.dumps({"type": "user", "message": {"role": "user", "content": text}}))
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("boundaries", [1, 2, 3])
def test_same_tail_as_splitting_the_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
                                               boundaries: int) -> None:  # fmt: skip
    monkeypatch.setattr(compaction_view, "TAIL_CHUNK", 97)  # lines and marks straddle the chunks
    rng = random.Random(seed)
    data = _transcript(rng, rng.randrange(1, 400))
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    assert read_tail(str(path), boundaries) == _expected(data, boundaries)


def test_max_bytes_stops_at_the_whole_chunks_that_reach_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction_view, "TAIL_CHUNK", 100)
    lines = [json.dumps({"type": "user", "n": n, "pad": "y" * 40}) for n in range(200)]
    data = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    tail = read_tail(str(path), 2, max_bytes=750)  # 8 chunks of 100 bytes, from the first whole line in them
    window = data[-800:]
    assert tail == window[window.find(b"\n") + 1 :]


def _chunked_read_tail(path: str, boundaries: int, max_bytes: int | None, chunk: int) -> bytes:
    """The reference: read_tail as it was before it mapped the file, reading back a chunk at a time."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        pos, data = size, b""
        while pos > 0:
            step = max(chunk, len(data))
            if max_bytes is not None:
                step = min(step, max(chunk, -(-(max_bytes - len(data)) // chunk) * chunk))
            step = min(step, pos)
            pos -= step
            f.seek(pos)
            data = f.read(step) + data
            start = _chunked_line_start(data, boundaries, whole=pos == 0)
            if start is not None:
                return data[start:]
            if max_bytes is not None and len(data) >= max_bytes:
                cut = data.find(b"\n")
                return data[cut + 1 :] if cut >= 0 else b""
        return data


def _chunked_line_start(data: bytes, boundaries: int, *, whole: bool) -> int | None:
    seen, end = 0, len(data)
    while (hit := data.rfind(compaction_view.BOUNDARY_MARK, 0, end)) >= 0:
        start = data.rfind(b"\n", 0, hit) + 1
        if start == 0 and not whole:
            return None
        stop = data.find(b"\n", hit)
        line = data[start : stop if stop >= 0 else len(data)]
        if b'"subtype":"compact_boundary"' in line.replace(b" ", b"") and b'"type":"system"' in line.replace(b" ", b""):
            seen += 1
            if seen == boundaries:
                return start
        end = start
    return None


LINES = st.sampled_from([
    BOUNDARY.encode(),
    b'{"type":"system","subtype":"compact_boundary"}',
    b'{"type": "user", "text": "\\"compact_boundary\\""}',  # the mark in a line that is no boundary
    b'"compact_boundary" {"type":"system","subtype":"compact_boundary"}',
    b"", b"x", b"y" * 60, b'{"type": "user"}',
])  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    lines=st.lists(LINES, max_size=30),
    newline_at_end=st.booleans(),
    boundaries=st.integers(1, 3),
    max_bytes=st.none() | st.integers(0, 900),
    chunk=st.integers(1, 120),
    mappable=st.booleans(),
)
def test_the_mapped_search_answers_as_the_chunked_reads_did(tmp_path_factory: pytest.TempPathFactory,
                                                            lines: list[bytes], newline_at_end: bool,
                                                            boundaries: int, max_bytes: int | None, chunk: int,
                                                            mappable: bool) -> None:  # fmt: skip
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    path = tmp_path_factory.mktemp("tail") / "t.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compaction_view, "TAIL_CHUNK", chunk)
        if not mappable:  # a file system that cannot map files
            patch.setattr(compaction_view.mmap, "mmap", _no_mmap)
        tail = read_tail(str(path), boundaries, max_bytes=max_bytes)
    assert tail == _chunked_read_tail(str(path), boundaries, max_bytes, chunk)


def _no_mmap(*args: object, **kwargs: object) -> NoReturn:
    raise OSError("no mmap here")
