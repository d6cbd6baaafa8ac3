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
