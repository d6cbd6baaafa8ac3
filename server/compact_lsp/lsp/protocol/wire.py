"""The JSON converter: LSP types through lsprotocol, custom methods' params as the plain JSON they came as.

pygls turns the params of methods it does not know into namedtuples, renaming keys that are not identifiers
(``"cache-control"`` becomes ``_0``). Messages must reach the engine byte for byte, so custom requests and
notifications keep their params as dicts and lists.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, cast

import attrs
from cattrs import Converter
from lsprotocol import types
from lsprotocol.types import ResponseError, ResponseErrorMessage
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.language_server import lsp_method

from compact_lsp import PROTOCOL_VERSION, __version__
from compact_lsp.engine.conversation.messages import non_finite_field
from compact_lsp.lsp.protocol.frames import frame_of, result_body

if TYPE_CHECKING:
    from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)


class EncodedResult(bytes):
    """A request's result as JSON already made (UTF-8), sent as it is: an at-once answer that costs the loop a
    write, not a ``json.dumps``."""


AtOnce = Callable[[Any], Any]
"""Answers a request's params as the frame is read (a JSON value, or an ``EncodedResult``), or returns None to
leave the request to its handler."""


def _keep_json(obj: dict[str, Any], cls: type[Any]) -> Any:
    # JSON-RPC lets a request leave out "params" (and a response "result" when it is null). A request that
    # fails to parse here is dropped before its id is known, and its client would wait for an answer forever.
    fields = attrs.fields_dict(cls)
    known = {key: value for key, value in obj.items() if key in fields}
    for optional in ("params", "result", "jsonrpc"):
        if optional in fields:
            known.setdefault(optional, "2.0" if optional == "jsonrpc" else None)
    return cls(**known)


def json_converter() -> Converter:
    """pygls' default converter, except that unknown methods' params (and results) stay plain JSON."""
    converter = cast(Converter, default_converter())  # type: ignore[no-untyped-call]
    for message_type in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(message_type, _keep_json)
    return converter


TOO_DEEP = (
    "compact-lsp could not read this message: it is nested too deep to parse; nothing was done. Send values nested "
    "at most 100 levels deep."
)


def frame_id(body: bytes) -> int | str | None:
    """The top-level ``"id"`` of a frame that could not be parsed, when it is a number or a string (else None),
    read without parsing the rest: strings and brackets are skipped by a scan that keeps only the depth, so any
    nesting costs no stack."""
    text = body.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    depth, i, n, key = 0, 0, len(text), None
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if depth == 1 and key is None:
                key = text[i + 1 : end]
                if "\\" in key:  # an escaped key ("i\u0064" is "id"): decode this one string
                    with contextlib.suppress(ValueError):
                        key = decoder.raw_decode(text, i)[0]
            i = end + 1
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == ":" and depth == 1 and key == "id":
            start = i + 1
            while start < n and text[start] in " \t\r\n":
                start += 1
            if start < n and text[start] in "[{":
                return None  # a request's id is never a container: no need to parse it
            try:
                value = decoder.raw_decode(text, start)[0]
            except ValueError:
                return None
            return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
        elif ch == "," and depth == 1:
            key = None
        i += 1
    return None


def _envelope(data: Any) -> Any:
    """pygls' generic response or notification (our methods' JSON) as a plain dict, the same JSON: through the
    converter every value of the result is walked again (87 calls a message at 50-session load) to come back as it
    was. Anything else (lsprotocol's types, errors) goes through the converter."""
    kind = type(data)
    if kind is JsonRPCResponseMessage:
        return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
    if kind is JsonRPCNotification:
        return {"method": data.method, "jsonrpc": data.jsonrpc, "params": data.params}
    return data


@attrs.define
class UnreadableRequest:
    """A request whose params could not be read: answered with the error, never handed to a feature."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


PARSE_ERROR = -32700
INVALID_REQUEST = -32600
SHUT_DOWN = "compact-lsp is shutting down (the editor asked it to); nothing was done. Restart the server to go on."


class AnsweringProtocol(LanguageServerProtocol):
    """pygls drops a request whose params do not fit the LSP type (``workspace/executeCommand`` with
    ``"arguments": 5``) after logging it, and the client waits forever; this one answers it with the error. It
    also answers what cannot be read at all (``decode``): a frame nested too deep for the parser (with its id when
    the id can be read, else a parse error), and a request carrying NaN or an infinity, which JSON does not have
    (InvalidParams naming the field; Python's json would read ``NaN``, ``Infinity`` and ``1e400``)."""

    _non_finite = False  # set while a frame is parsed: it held NaN, Infinity or a number past the float range

    def __init__(self, server: JsonRPCServer, converter: Converter) -> None:
        super().__init__(server, converter)  # type: ignore[arg-type]
        self.at_once: dict[str, AtOnce] = {}
        """Requests answered as they are read, before anything queued on the loop, when the answer is at hand
        (``compact/status`` from its published snapshot, lsp/sessions/snapshots.py): behind a wave of pipelined
        appends a status handler waits for its turn on the loop far longer than it takes to answer. None
        from the function, or an exception, leaves the request to its handler, which answers it in full."""

    def decode(self, body: bytes) -> Any:
        """One frame's message, ready for ``handle_message``; a frame that cannot be parsed is answered here and
        None returned (the stream stays in sync: the frame's length was known)."""
        self._non_finite = False
        try:
            # the envelope alone is structured: an object_hook ran a Python call for every object in the params
            # (an append's messages and their blocks), on the loop, for each frame
            data = json.loads(body, parse_constant=self._constant, parse_float=self._float)
            return self.structure_message(data) if isinstance(data, dict) else data
        except RecursionError:
            msg_id = frame_id(body)
            log.warning("a frame nested too deep to parse (id %r); answered with an error", msg_id)
            self._send_error(msg_id, PARSE_ERROR if msg_id is None else INVALID_REQUEST, TOO_DEEP)
        except ValueError as exc:  # not JSON, not UTF-8
            msg_id = frame_id(body)
            log.warning("a frame that is not JSON (%s); answered with a parse error", exc)
            self._send_error(msg_id, PARSE_ERROR, f"compact-lsp could not parse the message: {exc}")
        return None

    def _send_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        """An error response as plain JSON: ``"id": null`` stays in (the converter would drop it)."""
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def _constant(self, name: str) -> float:
        self._non_finite = True
        return float(name)

    def _float(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self._non_finite = True
        return value

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Generator[Any, Any, types.InitializeResult]:
        """pygls' initialize, plus `capabilities.experimental.compactLsp`: the server's version and the protocol's,
        which the editors compare with the ones they expect (docs/protocol.md)."""
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "compactLsp": {"serverVersion": __version__, "protocolVersion": PROTOCOL_VERSION}
        }
        return result

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" in data and log.isEnabledFor(logging.DEBUG):  # the envelope, not a nested params object
            with contextlib.suppress(ValueError, RecursionError):  # cli.BodyFilter: only with --log-bodies
                log.debug("Received data: %s", json.dumps(data), extra={"message_body": True})
        if self._non_finite and "jsonrpc" in data and isinstance(data.get("method"), str):
            refused = self._refuse_non_finite(data)
            if refused is not None:
                return refused
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            if "id" not in data or not isinstance(method, str):
                raise
            cause = f" ({exc.__cause__})" if exc.__cause__ is not None else ""
            readable = JsonRpcException(f"{method}: the params do not have the shape this request takes{cause}")
            readable.code = exc.code
            return UnreadableRequest(data["id"], method, readable)

    def _refuse_non_finite(self, data: dict[str, Any]) -> UnreadableRequest | None:
        """The envelope of a frame that held a non-finite number: refused when it is in the params."""
        field = non_finite_field(data.get("params"), "params")
        if field is None:
            return None
        method = data["method"]
        error = JsonRpcInvalidParams(f"{method}: {field} is not a finite number (NaN or Infinity), which JSON does "
                                     "not allow; send a number")  # fmt: skip
        if "id" not in data:
            log.warning("ignored a %s notification: %s is not a finite number", method, field)
        return UnreadableRequest(data.get("id"), method, error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnreadableRequest):
            if message.id is not None:  # a notification that could not be read is only logged
                self._send_response(message.id, error=message.error.to_response_error())
            return
        if isinstance(message, JsonRPCRequestMessage) and self._shutdown:  # pygls drops it: the client would wait
            error = ResponseError(code=INVALID_REQUEST, message=f"{message.method}: {SHUT_DOWN}")
            self._send_response(message.id, error=error)
            return
        if isinstance(message, JsonRPCRequestMessage) and self._answered_at_once(message):
            return
        super().handle_message(message)

    def _answered_at_once(self, message: JsonRPCRequestMessage) -> bool:
        answer = self.at_once.get(message.method)
        if answer is None:
            return False
        try:
            result = answer(message.params)
        except Exception:  # the handler answers it, error and all
            log.debug("%s: no answer at once", message.method, exc_info=True)
            return False
        if result is None:
            return False
        if isinstance(result, EncodedResult) and self.writer is not None:
            body = result_body(message.id, result)
            if log.isEnabledFor(logging.DEBUG):  # cli.BodyFilter: only with --log-bodies
                log.debug("Sending data: %s", body.decode(self.CHARSET), extra={"message_body": True})
            self._send_frame(body)
        else:
            self._send_response(message.id, result=result)
        flush = getattr(self.writer, "flush", None)  # an answer given at once goes out at once (BatchedStdout)
        if flush is not None:
            flush()
        return True

    _writes: set[asyncio.Future[Any]] = set()  # noqa: RUF012 - pending async writes, kept until done

    def _send_data(self, data: Any) -> None:
        """pygls logs a message it cannot serialise (a value nested hundreds deep) and sends nothing, so the
        client waits forever; here the request gets an error answer instead. Bodies are never logged here."""
        if not data or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = json.dumps(_envelope(data), default=self._serialize_message)
        except (TypeError, ValueError, RecursionError) as exc:
            msg_id = getattr(data, "id", None)
            log.error("could not serialise the message for request %r: %s", msg_id, type(exc).__name__)
            if msg_id is None or not hasattr(data, "result"):
                return
            error = ResponseError(
                code=-32603,
                message=f"compact-lsp could not serialise its answer ({type(exc).__name__}: {exc}); "
                "nothing was sent. A value nested too deep? See the server log.",
            )
            super()._send_data(ResponseErrorMessage(id=msg_id, error=error))
            return
        log.debug("Sending data: %s", body, extra={"message_body": True})  # cli.BodyFilter: only with --log-bodies
        self._send_frame(body.encode(self.CHARSET))

    def _send_frame(self, body: bytes) -> None:
        """One frame, its header and ``body`` (the message's JSON, UTF-8), to the writer."""
        assert self.writer is not None  # callers send nothing without one
        res = self.writer.write(frame_of(body))
        if inspect.isawaitable(res):  # the TCP and websocket writers
            task = asyncio.ensure_future(res)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)
