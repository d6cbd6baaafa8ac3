"""Reading JSON-RPC frames from the client strictly, and the process's exit code.

pygls' reader skips a header it does not understand and then reads the body as if it were headers: after one
frame with a bad or missing ``Content-Length`` every later request goes unanswered, silently. Here a frame
header that cannot be read ends the server at once with a log line and exit code ``FRAMING_EXIT_CODE`` (the
editor restarts it); resynchronising would mean guessing where a body of unknown length ends.

``exit`` without a preceding ``shutdown`` ends the process with code 1 (LSP spec); pygls raises that as
``SystemExit`` and its own runner swallows it, so ``serve_stdio`` keeps the code.

Stdin is read on the event loop itself (``loop_reader``: an asyncio pipe transport, chunks of up to 256 KiB),
not through pygls' ``StdinAsyncReader``, which hands every header line and every body to a worker thread and
back: three thread hops a frame, each waiting for the interpreter while the sessions' threads hold it: behind a
wave of pipelined appends a ``compact/status`` waited far longer to be read than to be answered (bench/bench_load.py;
docs/benchmarks.md, "Figures behind the code"). Stdin that is no pipe, socket or terminal (a regular file)
keeps pygls' reader.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdinAsyncReader

from compact_lsp.lsp.protocol.frames import FRAMING_EXIT_CODE, READ_LIMIT, FramingError, add_header, body_length
from compact_lsp.lsp.protocol.wire import AnsweringProtocol

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

log = logging.getLogger(__name__)


class Reader(Protocol):
    """What ``serve_frames`` reads from: pygls' ``StdinAsyncReader`` or ``LoopReader``."""

    def readline(self) -> Awaitable[bytes]: ...

    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class LoopReader:
    """Stdin as an ``asyncio.StreamReader`` on the loop; at end of input ``readexactly`` returns what was left."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        try:
            return await self.stream.readline()
        except ValueError:  # asyncio's limit: no header line is anywhere near this long
            raise FramingError(f"a header line longer than {READ_LIMIT} bytes") from None

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as exc:
            return exc.partial


async def loop_reader(stdin: BinaryIO) -> LoopReader | None:
    """``stdin`` read by the running loop, or None when it cannot be (a regular file: no pipe transport)."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=READ_LIMIT, loop=loop)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin)
    except (ValueError, OSError) as exc:
        log.debug("stdin is read on a worker thread: %s", exc)
        return None
    return LoopReader(stream)


async def serve_frames(
    stop: threading.Event,
    reader: Reader,
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
            if add_header(headers, line):
                break
        length = body_length(headers)
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


class BatchedStdout:
    """Stdout for the protocol: the frames sent in one turn of the loop go out in one write, at the end of it.

    pygls' ``StdoutWriter`` writes and flushes each frame; every write gives up the interpreter and waits for it
    back behind the sessions' threads (docs/benchmarks.md, "Figures behind the code"). Frames keep their order; a
    write from another thread, or with no loop running, goes out at once, after what is pending. After ``close``
    (the ``exit`` notification) nothing more is sent: an answer after it is dropped rather than reported as a lost
    connection."""

    def __init__(self, stdout: BinaryIO) -> None:
        self._stdout = stdout
        self._pending: list[bytes] = []
        self._lock = threading.Lock()
        self._broken = False
        self._closed = False

    def write(self, data: bytes) -> None:
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            self._pending.append(data)
            first = len(self._pending) == 1
        if loop is None:
            self.flush()
        elif first:
            loop.call_soon(self.flush)

    def flush(self) -> None:
        with self._lock:
            data, self._pending = b"".join(self._pending), []
            if not data or self._broken or self._closed:
                return
            try:
                self._stdout.write(data)
                self._stdout.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:  # the client is gone; its end of stdin ends us
                self._broken = True
                log.error("the connection to the client is lost (%s); nothing more is sent", exc)

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._closed = True
            self._stdout.close()


async def _serve(server: CompactLanguageServer, stop: threading.Event, protocol: AnsweringProtocol) -> None:
    reader: Reader | None = await loop_reader(sys.stdin.buffer)
    if reader is None:
        reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    await serve_frames(stop, reader, protocol, server.report_server_error)


def serve_stdio(server: CompactLanguageServer) -> int:
    """pygls' ``start_io`` with strict framing; returns the exit code."""
    stop = threading.Event()
    server._stop_event = stop
    protocol = server.protocol
    assert isinstance(protocol, AnsweringProtocol)  # create_server's protocol class
    writer = BatchedStdout(sys.stdout.buffer)
    protocol.set_writer(writer)
    code = 0
    try:
        asyncio.run(_serve(server, stop, protocol))
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
        writer.flush()  # what the last turn of the loop sent (the answer to ``shutdown``, say)
        server.shutdown()  # type: ignore[no-untyped-call]
    return code
