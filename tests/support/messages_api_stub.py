"""A loopback stub of the Anthropic Messages API, for tests that drive the real SDK over real HTTP.

``MessagesApiStub`` serves ``POST /v1/messages`` on 127.0.0.1 (a free port) from a thread. Tests script what
it answers with a queue of ``StubResponse`` (built by ``reply``, ``tool_call``, ``api_error``, ``hang``,
``reset_mid_stream``, ``error_mid_stream``) and read back every request body it received from ``requests``::

    stub.push(reply("<summary>done</summary>"))
    client = anthropic.AsyncAnthropic(api_key="test-key", base_url=stub.base_url, max_retries=0)
    ...
    assert stub.requests[0].body["messages"][-1]["role"] == "user"

The stub is as strict as the API: a request the real service refuses (``messages_api_rules``: tool blocks
without tools, a tool_result that does not follow its tool_use, empty text, roles out of turn, ``max_tokens``
out of bounds, more than four cache breakpoints, malformed image or document blocks, thinking out of place,
a prompt over ``context_window``) gets the API's 400 ``invalid_request_error`` with its words, before any
scripted answer is used; ``refused`` lists those answers.

Streaming requests (``"stream": true``) get server-sent events exactly as the API sends them:
``message_start``, ``content_block_start``, ``content_block_delta`` (``text_delta``, ``input_json_delta``,
``thinking_delta``), ``content_block_stop``, ``message_delta`` (stop_reason and usage) and ``message_stop``;
others get the JSON message. With nothing queued the stub answers ``default`` if set, else a 500 that says so
(and that the SDK does not retry).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.messages_api_rules import CONTEXT_WINDOW, refusal

Block = dict[str, Any]


@dataclass
class StubResponse:
    """One scripted answer. ``content`` blocks are API content blocks (text, tool_use, thinking)."""

    content: list[Block] = field(default_factory=list)
    stop_reason: str = "end_turn"
    status: int = 200
    error_type: str | None = None
    error_message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (the server side of a client timeout)."""
    gate: threading.Event | None = None
    """Answer only once this is set (or the stub stops): the test acts while the request is held."""
    hang: bool = False
    """Never answer (until the stub stops): a request the client has to time out or cancel."""
    reset_after_events: int | None = None
    """Streaming only: drop the connection after this many events, without ending the body."""
    error_event_after: int | None = None
    """Streaming only: send an ``error`` event (``error_type``) after this many events, then end."""
    raw_stream: bytes | None = None
    """Streaming only: send these bytes as the event stream instead of the message's events (malformed SSE)."""
    raw_body: tuple[str, bytes] | None = None
    """(content type, bytes): answer 200 with this body whatever was asked (a proxy's page, not a stream)."""
    input_tokens: int | None = None
    """Reported usage; None: a rough count of the request body."""
    output_tokens: int | None = None
    model: str | None = None


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    def last_user_text(self) -> str:
        """The text blocks of the last message, joined (where a summary request puts its prompt)."""
        content = self.body["messages"][-1]["content"]
        if isinstance(content, str):
            return content
        return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def reply(text: str, stop_reason: str = "end_turn", **kwargs: Any) -> StubResponse:
    """A plain text answer."""
    return StubResponse(content=[{"type": "text", "text": text}], stop_reason=stop_reason, **kwargs)


def tool_call(
    name: str,
    tool_input: dict[str, Any],
    *,
    text: str | None = None,
    tool_id: str | None = None,
    **kwargs: Any,
) -> StubResponse:
    """An answer that calls one tool (optionally after some text), stop_reason ``tool_use``."""
    blocks: list[Block] = [{"type": "text", "text": text}] if text else []
    blocks.append(
        {
            "type": "tool_use",
            "id": tool_id or f"toolu_{uuid.uuid4().hex[:20]}",
            "name": name,
            "input": tool_input,
        }
    )
    return StubResponse(content=blocks, stop_reason="tool_use", **kwargs)


def api_error(status: int, error_type: str, message: str = "", headers: dict[str, str] | None = None) -> StubResponse:
    """An HTTP error with the API's error body, e.g. ``api_error(429, "rate_limit_error", headers={...})``."""
    return StubResponse(
        status=status, error_type=error_type, error_message=message or error_type, headers=headers or {}
    )


def malformed_sse() -> StubResponse:
    """A stream that starts well, then sends an event whose data is not JSON."""
    start = {"type": "message_start", "message": {"id": "msg_bad", "type": "message", "role": "assistant",
             "model": "claude-stub", "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {"input_tokens": 5, "output_tokens": 1}}}  # fmt: skip
    return StubResponse(raw_stream=_sse("message_start", start) + b"event: content_block_start\ndata: {not json\n\n")


def not_a_stream() -> StubResponse:
    """A 200 whose body is an HTML page (a captive portal or a proxy), not an event stream."""
    return StubResponse(raw_body=("text/html", b"<html><body>Welcome to the hotel wifi</body></html>"))


def hang() -> StubResponse:
    return StubResponse(hang=True)


def reset_mid_stream(text: str = "partial answer that never ends", after_events: int = 3) -> StubResponse:
    return StubResponse(content=[{"type": "text", "text": text}], reset_after_events=after_events)


def error_mid_stream(error_type: str = "overloaded_error", message: str = "Overloaded", after: int = 2) -> StubResponse:
    return StubResponse(
        content=[{"type": "text", "text": "partial"}],
        error_type=error_type,
        error_message=message,
        error_event_after=after,
    )


class MessagesApiStub:
    """The loopback server. Use as a context manager, or ``start()`` / ``close()``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.refused: list[tuple[RecordedRequest, str]] = []
        """Every request the API's rules refused, with the API's message."""
        self.on_event: Callable[[dict[str, Any]], None] | None = None
        """Told ``{"request": body}`` for each request received, then ``{"refused": message}`` if refused (from the
        stub's threads; the process form of the stub prints them)."""
        self.context_window = CONTEXT_WINDOW
        """The input limit (estimated tokens) past which a request is "prompt is too long"."""
        self.default: StubResponse | None = None
        self.responder: Callable[[dict[str, Any]], StubResponse | None] | None = None
        """Asked first with each /v1/messages body; None from it falls back to the queue (a client that sends
        requests of its own, such as Claude Code's compaction or a sub-agent, is answered by what it asks)."""
        self._queue: deque[StubResponse] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._received = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ------
    def push(self, *responses: StubResponse) -> None:
        with self._lock:
            self._queue.extend(responses)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path.startswith("/v1/messages")]

    def wait_for_requests(self, count: int = 1, timeout: float = 30.0) -> bool:
        """Block until ``count`` requests arrived; from async code: ``await asyncio.to_thread(...)``."""
        with self._received:
            return self._received.wait_for(lambda: len(self.requests) >= count, timeout=timeout)

    def _record(self, request: RecordedRequest) -> None:
        with self._received:
            self.requests.append(request)
            self._received.notify_all()
        if self.on_event is not None:
            self.on_event({"request": request.body})

    def _next(self, body: dict[str, Any]) -> StubResponse:
        if self.responder is not None and (answer := self.responder(body)) is not None:
            return answer
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.default is not None:
            return self.default
        return StubResponse(
            status=500,
            error_type="api_error",
            error_message="messages_api stub: no scripted response left",
            headers={"x-should-retry": "false"},
        )

    # -- lifecycle ------
    @property
    def base_url(self) -> str:
        assert self._server is not None, "the stub is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> MessagesApiStub:
        stub = self

        class Handler(_Handler):
            owner = stub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="messages-api-stub",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> MessagesApiStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    owner: MessagesApiStub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        stub = self.owner
        stub._record(RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if self.path.split("?")[0] == "/v1/messages/count_tokens":
            self._send_json(200, {"input_tokens": max(1, len(raw) // 4)})
            return
        if self.path.split("?")[0] != "/v1/messages":
            self._send_json(404, _error_body("not_found_error", f"no route {self.path}"))
            return
        if (refused := refusal(body, context_window=stub.context_window)) is not None:
            stub.refused.append((stub.requests[-1], refused))
            if stub.on_event is not None:
                stub.on_event({"refused": refused})
            self._send_json(400, _error_body("invalid_request_error", refused))
            return
        response = stub._next(body)
        if response.hang:
            stub._stopping.wait(timeout=60)
            self.close_connection = True
            return
        if response.gate is not None:
            while not response.gate.wait(timeout=0.05):
                if stub._stopping.is_set():
                    self.close_connection = True
                    return
        if response.delay and stub._stopping.wait(timeout=response.delay):
            self.close_connection = True
            return
        if response.status >= 400:
            self._send_json(
                response.status,
                _error_body(response.error_type or "api_error", response.error_message),
                response.headers,
            )
            return
        if response.raw_body is not None:
            self._send_raw(*response.raw_body)
            return
        message = _message(response, body, len(raw))
        if body.get("stream"):
            self._stream(response, message)
        else:
            self._send_json(200, message, response.headers)

    # -- plain JSON ------
    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_stub_{uuid.uuid4().hex[:12]}")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_raw(self, content_type: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    # -- server-sent events ------
    def _stream(self, response: StubResponse, message: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_stub_{uuid.uuid4().hex[:12]}")
        for key, value in response.headers.items():
            self.send_header(key, value)
        self.end_headers()
        if response.raw_stream is not None:
            self._chunk(response.raw_stream)
            self._chunk(b"")
            return
        for sent, event in enumerate(_events(message)):
            if response.reset_after_events is not None and sent >= response.reset_after_events:
                self.wfile.flush()
                self.close_connection = True
                return  # no terminating chunk: the client sees an incomplete body
            if response.error_event_after is not None and sent >= response.error_event_after:
                self._chunk(_sse("error", _error_body(response.error_type or "api_error", response.error_message)))
                break
            self._chunk(_sse(event["type"], event))
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _message(response: StubResponse, body: dict[str, Any], body_bytes: int) -> dict[str, Any]:
    text_chars = sum(len(json.dumps(b)) for b in response.content)
    return {
        "id": f"msg_stub_{uuid.uuid4().hex[:16]}",
        "type": "message",
        "role": "assistant",
        "model": response.model or body.get("model", "claude-stub"),
        "content": response.content,
        "stop_reason": response.stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": response.input_tokens if response.input_tokens is not None else max(1, body_bytes // 4),
            "output_tokens": response.output_tokens if response.output_tokens is not None else max(1, text_chars // 4),
        },
    }


def _pieces(text: str, size: int = 24) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _events(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The streaming events of a message, in the API's order, with text and JSON split into several deltas."""
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    start["usage"] = {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in _pieces(block["text"]):
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "text_delta", "text": piece},
                    }
                )
        elif kind == "tool_use":
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": head})
            for piece in _pieces(json.dumps(block.get("input", {})), 16):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        elif kind == "thinking":
            head = {"type": "thinking", "thinking": "", "signature": ""}
            events.append({"type": "content_block_start", "index": index, "content_block": head})
            for piece in _pieces(block.get("thinking", "")):
                delta = {"type": "thinking_delta", "thinking": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
            signature = {"type": "signature_delta", "signature": block.get("signature", "stub-signature")}
            events.append({"type": "content_block_delta", "index": index, "delta": signature})
        else:
            events.append({"type": "content_block_start", "index": index, "content_block": block})
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        }
    )
    events.append({"type": "message_stop"})
    return events
