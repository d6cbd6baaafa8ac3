"""Reading JSON-RPC frames from the client strictly, and the process's exit code.

pygls' reader skips a header it does not understand and then reads the body as if it were headers: after one
frame with a bad or missing ``Content-Length`` every later request goes unanswered, silently. Here a frame
header that cannot be read ends the server at once with a log line and exit code ``FRAMING_EXIT_CODE`` (the
editor restarts it); resynchronising would mean guessing where a body of unknown length ends.

``exit`` without a preceding ``shutdown`` ends the process with code 1 (LSP spec); pygls raises that as
``SystemExit`` and its own runner swallows it, so ``serve_stdio`` keeps the code.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader, StdoutWriter

from compact_lsp.lsp.wire import AnsweringProtocol

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)

FRAMING_EXIT_CODE = 2
MAX_FRAME_BYTES = 512 * 1024 * 1024
"""A frame announcing more than this is refused (and ends the server): no request is that big."""
MAX_HEADER_LINES = 32


class FramingError(Exception):
    """A frame header that cannot be read; the stream cannot be trusted after it."""


async def serve_frames(
    stop: threading.Event,
    reader: StdinAsyncReader,
    protocol: AnsweringProtocol,
    on_error: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
) -> None:
    """Read frames until end of input (or ``stop``), handing each message to ``protocol``."""
    while not stop.is_set():
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if not line:
                return  # the client closed its end
            if line.strip() == b"":
                if headers:
                    break
                continue  # blank lines between frames are harmless
            name, sep, value = line.decode("ascii", "replace").partition(":")
            if not sep or len(headers) >= MAX_HEADER_LINES:
                raise FramingError(f"not a frame header: {line[:80]!r}")
            headers[name.strip().lower()] = value.strip()
        raw = headers.get("content-length")
        if raw is None or not raw.isdigit() or int(raw) > MAX_FRAME_BYTES:
            raise FramingError(f"a frame without a usable Content-Length (headers: {headers})")
        length = int(raw)
        body = await reader.readexactly(length)
        if len(body) < length:
            return
        try:
            message = protocol.decode(body)
            if message is not None:
                protocol.handle_message(message)
        except Exception as exc:
            log.exception("Unable to handle message")
            if on_error is not None:
                on_error(exc, JsonRpcException)


def serve_stdio(server: CompactLanguageServer) -> int:
    """pygls' ``start_io`` with strict framing; returns the exit code."""
    stop = threading.Event()
    server._stop_event = stop
    reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    protocol = server.protocol
    assert isinstance(protocol, AnsweringProtocol)  # create_server's protocol class
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    code = 0
    try:
        asyncio.run(serve_frames(stop, reader, protocol, server.report_server_error))
    except FramingError as exc:
        log.error("%s; exiting (code %d) so the editor can restart the server", exc, FRAMING_EXIT_CODE)
        code = FRAMING_EXIT_CODE
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
        code = 1
    except SystemExit as exc:  # the exit notification: 0 after shutdown, else 1
        code = exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        code = 130
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
    return code
