"""``read_tail``: the transcript from the line of the n-th boundary from its end, whatever the chunking."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

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
