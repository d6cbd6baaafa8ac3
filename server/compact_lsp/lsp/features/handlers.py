"""Binding module-level handlers to the server: pygls calls ``f(params)`` (a command ``f(*arguments)``), ours
take the server first so that a test can call them in-process with any server object.

Requests and commands get the error mapping of errors.py; notifications have no response to carry an error, so
a failure in one is logged with its traceback (pygls does that) and the server goes on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from compact_lsp.lsp.protocol.errors import rpc_errors

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

R = TypeVar("R")


def request_handler(
    server: CompactLanguageServer, handler: Callable[[CompactLanguageServer, Any], Awaitable[R]]
) -> Callable[[Any], Awaitable[R]]:
    """A module-level ``handler(server, params)`` as pygls calls a request handler: ``f(params)``, errors mapped."""

    async def handle(params: Any) -> R:
        return await handler(server, params)

    handle.__name__ = handle.__qualname__ = handler.__name__
    return rpc_errors(handle)


def command_handler(
    server: CompactLanguageServer, handler: Callable[[CompactLanguageServer, tuple[object, ...]], Awaitable[R]]
) -> Callable[..., Awaitable[R]]:
    """A module-level ``handler(server, args)`` as pygls calls a command: ``f(*arguments)``, errors mapped."""

    async def handle(*args: Any) -> R:  # not `object`: pygls would take a first parameter typed so for the server
        return await handler(server, args)

    handle.__name__ = handle.__qualname__ = handler.__name__
    return rpc_errors(handle)


def notification_handler(
    server: CompactLanguageServer, handler: Callable[[CompactLanguageServer, Any], None]
) -> Callable[[Any], None]:
    """A module-level ``handler(server, params)`` as pygls calls a notification handler: ``f(params)``."""

    def handle(params: Any) -> None:
        handler(server, params)

    handle.__name__ = handle.__qualname__ = handler.__name__
    return handle
