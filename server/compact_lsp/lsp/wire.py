"""The JSON converter: LSP types through lsprotocol, custom methods' params as the plain JSON they came as.

pygls turns the params of methods it does not know into namedtuples, renaming keys that are not identifiers
(``"cache-control"`` becomes ``_0``). Messages must reach the engine byte for byte, so custom requests and
notifications keep their params as dicts and lists.
"""

from __future__ import annotations

from typing import Any, cast

import attrs
from cattrs import Converter
from pygls.exceptions import JsonRpcException
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
)


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

    def structure_message(self, data: dict[str, Any]) -> Any:
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
