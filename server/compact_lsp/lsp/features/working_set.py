"""``compact/workingSet``: a session's ledger as rows an editor shows with links, and the text the model gets.

Any session the server knows: ours (its working set outlives its compactions), a followed agent's session (the
window followed, read as its hook reads it) or an imported one (agents/importing.py ``copied_working_set``).
Read-only: the working set is copied under the session's lock, or at once while a compaction holds it (a compaction
never changes the working set; the append that would waits for the lock), then checked against the disk off the
loop through the session's file gate.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from compact_lsp.agents.importing import copied_working_set
from compact_lsp.engine.compaction.ledger import LedgerView, ledger_view
from compact_lsp.engine.files.file_gate import gated_reader
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.lsp.features.handlers import request_handler
from compact_lsp.lsp.protocol.answers import working_set_answer
from compact_lsp.lsp.protocol.params import as_object, optional_str

if TYPE_CHECKING:
    from compact_lsp.engine.conversation.messages import Message
    from compact_lsp.lsp.server import CompactLanguageServer
    from compact_lsp.lsp.sessions.session_slot import SessionSlot

WORKING_SET = "compact/workingSet"


def _taken(slot: SessionSlot) -> tuple[WorkingSet, list[Message], str, bool]:
    """(working set, messages, working directory, the plan goes in the ledger's text), copied from the session."""
    session, followed = slot.session, slot.followed
    if followed is not None:
        work = followed.working_set()
        return work, followed.messages, work.cwd, followed.plan_in_ledger
    cwd = session.workspace_root or ""
    messages = list(session.messages)
    copied = copied_working_set(session.id, session.source, messages, cwd)  # an agent's log, as its hook reads it
    if copied is not None:
        return copied, messages, cwd, True
    return session.state.working_set.snapshot(), messages, cwd, False


async def working_set(server: CompactLanguageServer, params: Any) -> dict[str, Any]:
    args = as_object(params, WORKING_SET)
    slot = await server.registry().get(optional_str(args, "sessionId", WORKING_SET), WORKING_SET)
    session = slot.session
    if session.compacting:  # the lock is the compaction's for as long as the model writes: do not wait for it
        work, messages, cwd, plan_in_text = _taken(slot)
    else:
        async with slot.lock.looking():
            work, messages, cwd, plan_in_text = await asyncio.to_thread(_taken, slot)
    read_text = gated_reader(session.allowed_roots)

    def check() -> LedgerView:
        plan = extract_plan(messages)
        return ledger_view(work, read_text=read_text, cwd=cwd, plan_text=plan.text if plan else None,
                           plan_in_text=plan_in_text)  # fmt: skip

    view = await asyncio.to_thread(check)
    return working_set_answer(session.id, cwd, view)


def register(server: CompactLanguageServer) -> None:
    server.feature(WORKING_SET)(request_handler(server, working_set))
