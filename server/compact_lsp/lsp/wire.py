"""The JSON converter: LSP types through lsprotocol, custom methods' params as the plain JSON they came as.

pygls turns the params of methods it does not know into namedtuples, renaming keys that are not identifiers
(``"cache-control"`` becomes ``_0``). Messages must reach the engine byte for byte, so custom requests and
notifications keep their params as dicts and lists.
"""

from __future__ import annotations

from typing import Any, cast

from cattrs import Converter
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)


def _keep_json(obj: dict[str, Any], cls: type[Any]) -> Any:
    return cls(**obj)


def json_converter() -> Converter:
    """pygls' default converter, except that unknown methods' params (and results) stay plain JSON."""
    converter = cast(Converter, default_converter())  # type: ignore[no-untyped-call]
    for message_type in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(message_type, _keep_json)
    return converter
