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
from collections.abc import Generator
from typing import Any, cast

import attrs
from cattrs import Converter
from lsprotocol import types
from lsprotocol.types import ResponseError, ResponseErrorMessage
from pygls.exceptions import JsonRpcException
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)
from pygls.protocol.language_server import lsp_method

from compact_lsp import PROTOCOL_VERSION, __version__

log = logging.getLogger(__name__)


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


@attrs.define
class UnreadableRequest:
    """A request whose params could not be read: answered with the error, never handed to a feature."""

    id: Any
    method: str
    error: JsonRpcException
    jsonrpc: str = "2.0"


class AnsweringProtocol(LanguageServerProtocol):
    """pygls drops a request whose params do not fit the LSP type (``workspace/executeCommand`` with
    ``"arguments": 5``) after logging it, and the client waits forever; this one answers it with the error."""

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

    def handle_message(self, message: Any) -> None:
        if isinstance(message, UnreadableRequest):
            self._send_response(message.id, error=message.error.to_response_error())
            return
        super().handle_message(message)

    _writes: set[asyncio.Future[Any]] = set()  # noqa: RUF012 - pending async writes, kept until done

    def _send_data(self, data: Any) -> None:
        """pygls logs a message it cannot serialise (a value nested hundreds deep) and sends nothing, so the
        client waits forever; here the request gets an error answer instead. Bodies are never logged here."""
        if not data or self.writer is None:
            super()._send_data(data)
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
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
        header = f"Content-Length: {len(body.encode(self.CHARSET))}\r\n"
        header += f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        log.debug("Sending data: %s", body, extra={"message_body": True})  # cli.BodyFilter: only with --log-bodies
        res = self.writer.write((header + body).encode(self.CHARSET))
        if inspect.isawaitable(res):  # the TCP and websocket writers
            task = asyncio.ensure_future(res)
            self._writes.add(task)
            task.add_done_callback(self._writes.discard)
