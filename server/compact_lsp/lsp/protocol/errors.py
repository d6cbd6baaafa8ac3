"""JSON-RPC errors with messages a person can act on, and the one place engine errors become them.

Handlers raise; pygls sends a ``JsonRpcException`` as the error response with our message and code. Only the
server's own error types are converted (``to_jsonrpc``): any other exception, a stray ``ValueError`` included, is
a bug, logged with its traceback and answered as an internal failure that points at the log.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.compaction.pins import PinError
from compact_lsp.engine.conversation.messages import MessageShapeError
from compact_lsp.engine.files.usable_path import UnusablePath
from compact_lsp.engine.session.context_session import ConversationError
from compact_lsp.engine.setting_ranges import SettingsError
from compact_lsp.store.session_lock import LockUnusable, SessionBusy
from compact_lsp.store.session_store import JournalWriteError, StoreError
from compact_lsp.tracking.reader import ReadRefused

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803
"""LSP's RequestFailed: the request was valid but could not be done (compaction in progress, disk full)."""

P = ParamSpec("P")
R = TypeVar("R")


def invalid_params(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message)


def request_failed(message: str, data: Any = None) -> JsonRpcException:
    return JsonRpcException(message, code=REQUEST_FAILED, data=data)


def to_jsonrpc(exc: Exception) -> JsonRpcException:
    """The error response for an exception a handler let through."""
    if isinstance(exc, JsonRpcException):
        return exc
    if isinstance(exc, CompactionError):
        return request_failed(str(exc), {"kind": exc.kind})
    if isinstance(exc, SessionBusy):
        return request_failed(str(exc), {"kind": "read_only", "owner": exc.owner})
    if isinstance(exc, (JournalWriteError, StoreError, LockUnusable)):
        return request_failed(str(exc))
    if isinstance(exc, (ReadRefused, SettingsError, MessageShapeError, ConversationError, PinError, UnusablePath)):
        return invalid_params(str(exc))
    # anything else (a stray ValueError or KeyError included) is a bug in the server: log it as one
    log.error("bug: a handler let %s through", type(exc).__name__, exc_info=exc)
    return JsonRpcException(f"compact-lsp failed unexpectedly: {type(exc).__name__}: {exc} (see the server log)")


def rpc_errors(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Decorate an async handler so its failures reach the client as readable JSON-RPC errors."""

    @functools.wraps(handler)
    async def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except Exception as exc:
            raise to_jsonrpc(exc) from exc

    return wrapped


REFUSAL_LOG_CHARS = 300
"""How much of a refusal's message its one log line keeps."""


class RefusalRecords(logging.Filter):
    """pygls logs every error answer a handler gives at ERROR, with two tracebacks ("Exception occurred for
    message"): an unknown session, a read-only session, a compaction already running. In the editor's output that
    reads as a crash, though the user was told what to do. On pygls' protocol logger, such a record becomes one
    INFO line with the answer's message; a bug keeps its traceback (``to_jsonrpc`` logged it as one), and so does
    an internal error pygls made of an exception no handler converted."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, JsonRpcException) or isinstance(exc, JsonRpcInternalError):
            return True
        msg_id = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        text = " ".join(exc.message.split())
        if len(text) > REFUSAL_LOG_CHARS:
            text = text[: REFUSAL_LOG_CHARS - 1] + "…"
        record.msg, record.args = "request %s answered with an error (%s): %s", (msg_id, exc.code, text)
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
        return logging.getLogger().isEnabledFor(logging.INFO)


def quiet_refusals() -> None:
    """Install ``RefusalRecords`` on pygls' protocol logger (once)."""
    logger = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, RefusalRecords) for f in logger.filters):
        logger.addFilter(RefusalRecords())
