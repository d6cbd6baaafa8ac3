"""JSON-RPC frames as LSP carries them (``Content-Length`` headers, a blank line, the body), read strictly.

Read by lsp/framing.py, on the event loop. A header that cannot be read is a ``FramingError``: the stream cannot be
trusted after it, resynchronising would mean guessing where a body of unknown length ends.
"""

from __future__ import annotations

import json

FRAMING_EXIT_CODE = 2
"""The exit code of a server whose client's stream could not be read: the editor restarts it."""
MAX_FRAME_BYTES = 512 * 1024 * 1024
"""A frame announcing more than this is refused (and ends the server): no request is that big."""
MAX_HEADER_LINES = 32
READ_LIMIT = 1024 * 1024
"""The longest header line read (a longer one is refused); the loop reader's buffer is twice this."""


class FramingError(Exception):
    """A frame header that cannot be read; the stream cannot be trusted after it."""


def add_header(headers: dict[str, str], line: bytes) -> bool:
    """Take one header line into ``headers`` (names lower-cased); True when it was the blank line that ends a
    frame's headers. Blank lines before the first header are harmless and skipped."""
    if line.strip() == b"":
        return bool(headers)
    name, sep, value = line.decode("ascii", "replace").partition(":")
    if not sep or len(headers) >= MAX_HEADER_LINES:
        raise FramingError(f"not a frame header: {line[:80]!r}")
    headers[name.strip().lower()] = value.strip()
    return False


def body_length(headers: dict[str, str]) -> int:
    """The body's length the headers announce; a ``FramingError`` when there is none to use."""
    raw = headers.get("content-length")
    if raw is None or not raw.isdigit() or int(raw) > MAX_FRAME_BYTES:
        raise FramingError(f"a frame without a usable Content-Length (headers: {headers})")
    return int(raw)


CONTENT_TYPE = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
"""The header every frame the server sends carries (pygls' own words)."""


def frame_of(body: bytes) -> bytes:
    """``body`` (a message's JSON, UTF-8) as one frame, headers first."""
    return b"Content-Length: %d\r\n%s\r\n%s" % (len(body), CONTENT_TYPE, body)


def result_body(msg_id: int | str, result: bytes) -> bytes:
    """A response's JSON from ``result`` already encoded: an answer given at once."""
    return b'{"id":%s,"jsonrpc":"2.0","result":%s}' % (json.dumps(msg_id).encode(), result)
