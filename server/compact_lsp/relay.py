"""The server as the editor starts it on stdio: a small front process that answers ``compact/status`` from the
snapshots its engine process sends, and passes every other frame through.

Why a second process: the engine's event loop shares one interpreter with the threads that run engine calls. With
50 busy sessions, a ``compact/status`` sent behind a wave of 50 appends waited for the loop to read and dispatch
those 50 frames, each time winning the interpreter back from two engine threads: p99 21 ms at 50 x 200 appends,
36 ms at 50 x 1,000 (bench/bench_load.py; issue 28 asks for 10). Here nothing but reading frames and passing
them on runs in the process that answers, so a status is answered as soon as it is read.

What the front answers itself: a ``compact/status`` request naming a session whose snapshot the engine sent, when
no frame that may change a status as it is handled is still on its way (``needs_ack``: those the engine
acknowledges once handled, the snapshots they withdrew or replaced sent before). That is what the engine would
answer at once in its place (snapshots.py): the same bytes, sent by the engine after every change that moves
them (lsp/relay_channel.py). After ``shutdown`` the front answers nothing itself. Everything else, and every
frame it cannot read, goes to the engine as it came, in order.

Lifetimes: the engine is this process's child and ends when it does (Linux kills it with the front, see
``engine_started``). The client closing stdin closes the engine's; the engine's exit, whatever the reason, ends
the front with the engine's exit code. A frame header the front cannot read ends both with ``FRAMING_EXIT_CODE``,
as it ended the engine alone before.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from typing import IO, Any, BinaryIO, NoReturn

from compact_lsp.lsp.protocol.frames import FRAMING_EXIT_CODE, Frame, FramingError, frame_of, read_frame, result_body
from compact_lsp.relay_frames import (
    ACK,
    ENGINE_ENV,
    RELAY_HEADER,
    SNAPSHOT,
    WITHDRAW,
    client_frame,
    session_of,
)
from compact_lsp.runtime.malloc_arena import share_malloc_arena

log = logging.getLogger(__name__)

STATUS = "compact/status"
SYNCHRONOUS_REQUESTS = frozenset({"initialize", "shutdown"})
"""Requests the engine handles as it reads them (pygls' own); every other request's handler runs later."""
UNORDERED_NOTIFICATIONS = frozenset({"$/cancelRequest", "$/setTrace"})
"""Notifications that change no status."""
PR_SET_PDEATHSIG = 1


def needs_ack(message: Any) -> bool:
    """Whether handling the frame may change at once what a status answered at once says: a notification (a
    document closed, settings changed) but the two that change none, initialize and shutdown, and any frame that
    could not be read. A request's handler runs after the frame is handled (a status behind it, answered at once,
    is the one before it, here as in the engine); a response only resumes a handler."""
    if not isinstance(message, dict):
        return True
    method = message.get("method")
    if method is None:
        return "id" not in message
    if not isinstance(method, str):
        return True
    if "id" in message:
        return method in SYNCHRONOUS_REQUESTS
    return method not in UNORDERED_NOTIFICATIONS


def _refuse(text: str) -> Any:
    raise ValueError(f"not a finite number: {text}")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {text}")
    return value


def parse(body: bytes) -> Any:
    """A client frame's message, or None when the engine must judge it (not JSON, too deep, NaN or an infinity
    anywhere in it, all of which the engine answers with its own errors)."""
    try:
        return json.loads(body, parse_constant=_refuse, parse_float=_finite)
    except (ValueError, RecursionError):
        return None


OUTBOX_BYTES = 64 * 1024 * 1024
"""How much of the client's input the front holds for an engine that reads slower than the client writes;
beyond it the front reads no more until the engine catches up (the client then waits, as it would on a pipe)."""


class Outbox:
    """Frames for the engine, written by a thread of their own: the front reads on while the engine's input is
    full (a wave of 50 appends fills a pipe's 64 KiB many times over), so a status behind them is read at once."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._ready = threading.Condition()
        self._pending: list[bytes] = []
        self._size = 0
        self._closed = False

    def put(self, data: bytes) -> None:
        with self._ready:
            while self._size > OUTBOX_BYTES and not self._closed:
                self._ready.wait()
            if self._closed:  # the engine is gone: nothing will read it
                return
            self._pending.append(data)
            self._size += len(data)
            self._ready.notify_all()

    def close(self) -> None:
        """No more frames: the engine's input closes once what is pending is written."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def run(self) -> None:
        """Write what is put, in order, until closed and written; then close the engine's input."""
        try:
            while True:
                with self._ready:
                    while not self._pending and not self._closed:
                        self._ready.wait()
                    data, self._pending, self._size = b"".join(self._pending), [], 0
                    done = self._closed
                    self._ready.notify_all()
                if data:
                    self._stream.write(data)
                    self._stream.flush()
                if done:
                    break
        except (BrokenPipeError, ValueError):
            pass  # the engine is gone; its end of output ends the front
        finally:
            self.close()
            with contextlib.suppress(OSError):
                self._stream.close()


class Front:
    """The front's state: the snapshots by session, how many marked frames the engine has not acknowledged, and the
    one writer of the client's stdout."""

    def __init__(self, engine: subprocess.Popen[bytes], client_out: int) -> None:
        self.engine = engine
        self._client_out = client_out
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._answers: dict[str, bytes] = {}
        self._unheard = 0
        self._closed = False
        self._broken = False

    def client_to_engine(self, stdin: BinaryIO) -> None:
        """Pass the client's frames on until its end of input, answering what can be answered here."""
        assert self.engine.stdin is not None  # started with a pipe
        outbox = Outbox(self.engine.stdin)
        writer = threading.Thread(target=outbox.run, name="client to engine", daemon=True)
        writer.start()
        try:
            self._pass_on(stdin, outbox)
        finally:
            outbox.close()

    def _pass_on(self, stdin: BinaryIO, outbox: Outbox) -> None:
        while (frame := read_frame(stdin)) is not None:
            message = parse(frame.body)
            if self._answered(message):
                continue
            ack = needs_ack(message)
            if isinstance(message, dict) and message.get("method") == "shutdown":
                self._closed = True
            if ack:
                with self._lock:
                    self._unheard += 1
            outbox.put(client_frame(frame.body, ack=ack))

    def engine_to_client(self, engine_out: IO[bytes]) -> NoReturn:
        """Pass the engine's frames to the client and keep what it tells the front; end the process with the
        engine's exit code when its output ends."""
        try:
            while (frame := read_frame(engine_out)) is not None:
                kind = frame.headers.get(RELAY_HEADER)
                if kind is None:
                    self._send(frame.head + frame.body)
                else:
                    self._heard(kind, frame)
        except FramingError as exc:  # the engine's own output: cannot happen, and must not hang the editor
            log.error("the engine's output could not be read (%s); ending it", exc)
            self.engine.kill()
        code = self.engine.wait()
        logging.shutdown()
        os._exit(code if code >= 0 else 128 - code)

    def _heard(self, kind: str, frame: Frame) -> None:
        if kind == ACK:
            with self._lock:
                self._unheard -= 1
            return
        session = session_of(frame.headers)
        if session is None:
            return
        with self._lock:
            if kind == SNAPSHOT:
                self._answers[session] = frame.body
            elif kind == WITHDRAW:
                self._answers.pop(session, None)

    def _answered(self, message: Any) -> bool:
        """Answer a status request from its session's snapshot when that is the engine's answer now."""
        if not isinstance(message, dict) or message.get("method") != STATUS:
            return False
        msg_id, params = message.get("id"), message.get("params")
        session = params.get("sessionId") if isinstance(params, dict) else None
        if not isinstance(session, str) or not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
            return False
        with self._lock:
            answer = None if self._unheard or self._closed else self._answers.get(session)
        if answer is None:
            return False
        self._send(frame_of(result_body(msg_id, answer)))
        return True

    def _send(self, data: bytes) -> None:
        with self._write_lock:
            if self._broken:
                return
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._client_out, view) :]
            except OSError as exc:  # the client is gone; its end of stdin ends us
                self._broken = True
                log.error("the connection to the client is lost (%s); nothing more is sent", exc)


def serve_front(args: list[str]) -> int:
    """Start the engine (``python -m compact_lsp`` with ``args``) and stand in front of it on stdio; returns
    only when the front cannot start its engine."""
    share_malloc_arena()  # before its threads start (runtime/malloc_arena.py says why)
    env = {**os.environ, ENGINE_ENV: str(os.getpid())}
    command = [sys.executable, "-m", "compact_lsp", *args]
    try:
        engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    except OSError as exc:
        log.error("could not start the compact-lsp engine (%s): %s", " ".join(command), exc)
        return 1
    assert engine.stdout is not None  # started with a pipe
    front = Front(engine, sys.stdout.fileno())
    relay = threading.Thread(target=front.engine_to_client, args=(engine.stdout,), name="engine to client")
    relay.start()
    try:
        front.client_to_engine(sys.stdin.buffer)
    except FramingError as exc:
        log.error("%s; exiting (code %d) so the editor can restart the server", exc, FRAMING_EXIT_CODE)
        engine.kill()
        engine.wait()
        logging.shutdown()
        os._exit(FRAMING_EXIT_CODE)
    except KeyboardInterrupt:  # Ctrl-C in a terminal reached the engine too; it ends, and its exit ends the front
        pass
    relay.join()  # it ends the process when the engine's output ends
    return 1  # not reached


def engine_started() -> bool:
    """In the engine process a front started: take the mark out of the environment, and on Linux ask to be killed
    with the front (a front killed outright leaves no engine holding the sessions' locks). False in a server the
    editor started itself."""
    front = os.environ.pop(ENGINE_ENV, None)
    if front is None or not front.isdigit():
        return False
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError) as exc:
            log.debug("the engine cannot follow its front's death: %s", exc)
    return os.getppid() == int(front)  # else the front is gone already, or this is not its child
