"""Scanning a log a chunk of whole lines at a time, into one buffer."""

from __future__ import annotations

import io

import pytest

from compact_lsp.agents.appended_lines import scan_chunks

LOG = b"".join(b"line %d %s\n" % (n, b"x" * (n * 7 % 50)) for n in range(200)) + b"torn"


@pytest.mark.parametrize(
    "chunk",
    [
        pytest.param(4096, id="one-chunk"),
        pytest.param(97, id="lines-straddle"),
        pytest.param(8, id="lines-outgrow-it"),
    ],
)
def test_a_scan_hands_over_every_whole_line_once_where_it_is_and_the_torn_end_last(chunk: int) -> None:
    seen, torn, read = b"", b"", 0
    for part in scan_chunks(io.BytesIO(LOG), len(LOG), chunk):
        assert part.at == len(seen)  # where the chunk's lines start in the file
        seen += bytes(part.data[: part.whole])
        torn = bytes(part.data[part.whole : part.end])
        read += part.read
    assert seen + torn == LOG and torn == b"torn"
    assert read == len(LOG)


def test_a_scan_stops_at_the_size_it_was_given() -> None:
    assert sum(part.read for part in scan_chunks(io.BytesIO(LOG), 20, 8)) == 20


def test_after_a_long_line_the_scan_goes_back_to_its_chunk_size() -> None:
    """A first read parses a chunk's records at a time: after one big tool result (a line longer than the chunk),
    the next chunks are the chunk's size again, not the long line's (a corpus-shaped first read held ~300
    records at once, 10 MiB for a moment over a 5 MiB window)."""
    log = b"x" * 50_000 + b"\n" + b"".join(b"line %05d of the log\n" % n for n in range(2_000))
    parts = [(part.whole, part.lines()) for part in scan_chunks(io.BytesIO(log), len(log), 4096) if part.whole]
    assert b"".join(lines for _, lines in parts) == log
    assert parts[0][0] > 50_000  # the long line (read into a buffer that doubled), and what else fitted
    assert max(whole for whole, _ in parts[1:]) <= 4096
