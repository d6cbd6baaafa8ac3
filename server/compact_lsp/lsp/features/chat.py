"""``compact/chat`` and ``compact/chatEvent``: the built-in agent (``compact_lsp.agent``) over the server.

A chat request runs one turn of the agent loop on a session and answers ``{stopReason, usage}`` when the turn
ends; meanwhile ``compact/chatEvent`` notifications stream it. The loop reaches the session only through
``SlotAccess``: every engine call under the session's lock (so compact/append, status and compactions from
elsewhere never interleave with it), automatic compaction through the server's ``compact_session`` (progress,
``compact/didCompact``). Permission prompts are ``window/showMessageRequest``. ``$/cancelRequest`` cancels the
handler's task; the loop answers any open tool call before the cancellation goes on.
"""

from __future__ import annotations

import functools
import logging
import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from compact_lsp.agent.loop import ChatLoop
from compact_lsp.agent.model_requests import anthropic_client_factory
from compact_lsp.agent.permissions import ACTIONS, Decision, PermissionRequest, Permissions, decision_for
from compact_lsp.agent.toolset import default_tools
from compact_lsp.engine.compaction.eviction import EvictionRecord
from compact_lsp.engine.compaction.full_compaction import CompactionOutcome
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import turn_answer
from compact_lsp.lsp.protocol.errors import request_failed
from compact_lsp.lsp.protocol.params import as_object, required_str
from compact_lsp.lsp.work.compacting import compact_session, refresh_notes
from compact_lsp.lsp.work.in_session import in_session
from compact_lsp.lsp.work.journal_follow import journal_of
from compact_lsp.lsp.work.notify import did_microcompact

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

log = logging.getLogger(__name__)

T = TypeVar("T")

CHAT = "compact/chat"
CHAT_EVENT = "compact/chatEvent"


class SlotAccess:
    """The agent loop's way to a server session (see the module docstring)."""

    def __init__(self, server: CompactLanguageServer, slot: SessionSlot) -> None:
        self.server = server
        self.slot = slot

    async def run(self, fn: Callable[[], T], *, changes: bool = True) -> T:
        return await in_session(self.server, self.slot, fn, changes=changes)

    async def compact(self, trigger: str) -> CompactionOutcome:
        return await compact_session(self.server, self.slot, trigger=trigger)

    def microcompacted(self, eviction: EvictionRecord) -> None:
        did_microcompact(self.server, self.slot.session.id, eviction)


def register(server: CompactLanguageServer) -> None:
    server.feature(CHAT)(request_handler(server, chat))


async def ask_permission(server: CompactLanguageServer, request: PermissionRequest) -> Decision:
    """A permission prompt as ``window/showMessageRequest``; no answer (dismissed) is a denial."""
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=request.prompt,
        actions=[types.MessageActionItem(title=title) for title in ACTIONS],
    )
    answer: Any = await server.window_show_message_request_async(params)
    title = answer.get("title") if isinstance(answer, dict) else getattr(answer, "title", None)
    return decision_for(title if isinstance(title, str) else None)


async def chat(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    """One turn of the agent on the session; ``compact/chatEvent`` streams it, the result ends it."""
    args = as_object(params, CHAT)
    slot = await server.registry().select(required_str(args, "sessionId", CHAT), CHAT)  # now the current one
    text = required_str(args, "text", CHAT)
    session = slot.session
    state = server.chat
    if session.id in state.running:
        raise request_failed(
            f"The agent is still answering in session {session.id}; wait for it, or cancel that request.",
            {"kind": "busy"},
        )
    journal = journal_of(slot)
    if journal is not None:  # a session another window writes: refused (read_only) before any model call
        await in_session(server, slot, journal.writer_lock.acquire, changes=False)
    agent = server.agent_settings
    permissions = state.permissions.setdefault(session.id, Permissions(ask=functools.partial(ask_permission, server)))

    def emit(event: dict[str, Any]) -> None:
        server.send_notification(CHAT_EVENT, {"sessionId": session.id, **event})

    loop = ChatLoop(
        session,
        client_factory=anthropic_client_factory(session.settings, agent),
        tools=default_tools(shell=agent.shell, ripgrep=shutil.which("rg")),
        permissions=permissions,
        emit=emit,
        settings=agent,
        access=SlotAccess(server, slot),
    )
    state.running.add(session.id)
    try:
        result = await loop.run_turn(text)
    finally:
        state.running.discard(session.id)
        # the turn grew the session: bring its notes up to date in the background, as after compact/append
        server.run_task(refresh_notes(server, slot), name=f"session notes of {session.id}")
    return turn_answer(result)
