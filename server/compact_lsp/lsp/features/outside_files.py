"""The user's word on files outside the workspace that an imported transcript used.

A transcript never widens what we read (engine/files/admitted_files.py): after ``compact/importSession`` (a log
or "Import to continue") the files it shows used with success outside the work roots are only proposed. This asks
the user once, with a ``window/showMessageRequest`` that names each file; only "Let these files in" admits them
(reason ``transcript``, each bound to the file it is now). Any other answer, or none, admits nothing. The prompt
runs in the background: the import answers at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.lsp.sessions.session_slot import SessionSlot
from compact_lsp.lsp.work.in_session import in_session

if TYPE_CHECKING:
    from compact_lsp.lsp.server import CompactLanguageServer

LET_IN = "Let these files in"
KEEP_OUT = "Keep them out"
MAX_NAMED = 40
"""Files named in one prompt; only the files named can be let in by it."""


def proposed(session: ContextSession) -> list[str]:
    """Files outside the work roots the transcript shows used, that only the user's yes can admit."""
    return [path for path, _ in session.state.admitted.proposed(session.work_roots)]


def prompt_text(paths: list[str]) -> str:
    named = paths[:MAX_NAMED]
    more = len(paths) - len(named)
    lines = "\n".join(f"  {path}" for path in named)
    tail = f"\n({more} more are not listed and stay out.)" if more else ""
    return (
        f"The imported session used {len(paths)} file{'s' if len(paths) != 1 else ''} outside this workspace. "
        "compact-lsp re-reads an outside file after a compaction only if you let it in; a transcript alone never "
        f"does. Let these files in?\n{lines}{tail}"
    )


async def ask_about_outside_files(server: CompactLanguageServer, slot: SessionSlot) -> list[str]:
    """Ask the user about the session's proposed outside files; the files admitted (none unless they said so)."""
    session = slot.session
    paths = await in_session(server, slot, lambda: proposed(session), changes=False)
    if not paths:
        return []
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=prompt_text(paths),
        actions=[types.MessageActionItem(title=LET_IN), types.MessageActionItem(title=KEEP_OUT)],
    )
    answer: Any = await server.window_show_message_request_async(params)
    title = answer.get("title") if isinstance(answer, dict) else getattr(answer, "title", None)
    if title != LET_IN:
        return []
    named = paths[:MAX_NAMED]

    def admit() -> list[str]:
        still = set(proposed(session))  # each bound to the file it is now, not when asked
        for path in named:
            if path in still:
                session.admit(path, "transcript")
        return [p for p in named if p in still]

    return await in_session(server, slot, admit)
