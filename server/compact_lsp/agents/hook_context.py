"""The context every agent's hook builds after the agent's own compaction: one owner for what the hooks share.

Each hook (claude_code/, codex/, qwen_code/, gemini_cli/ ``hook.py``) reads its agent's transcript into the engine's
messages for the window the model held before the compaction, and says what the agent keeps verbatim. From there
the build is the same for all of them: ``hook_window`` takes the disk as it is at that instant (the allowed roots,
``hook_io.allowed_roots``; the read-file state replayed), then ``hook_context`` builds the ledger, ranks the files
with the rehydration the server runs after its own compactions, adds the artifact trail, and fits it all in the
agent's limit in characters (``fit``), best first. What differs is passed in: the agent's working set, what it
keeps verbatim, the files it puts back itself (``denied``), how its model reads a hint (``attachment``) and how its
text must be escaped (``escape``), its header and its limit.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.agents.character_fit import HOOK_CHAR_LIMIT, CharCounter, already_in_context, hook_rehydration
from compact_lsp.agents.hook_io import allowed_roots
from compact_lsp.engine.compaction.ledger import Ledger, build_ledger
from compact_lsp.engine.compaction.rehydration import RehydrationResult, rehydrate
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.files.read_record import StatFn, os_stat
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.files.working_set import WorkingSet

MAX_TRAIL_FILES = 60
"""The artifact trail names at most this many files (then as many as fit)."""
ATTACHED_KINDS = ("ledger", "plan", "file", "file-deleted")
"""What a hook sends of rehydration's attachments (a plan only when the hook asks for one)."""
TRAIL_HEAD = '<artifact-trail note="files touched before the compaction, most recent first, with the last action">'
TRAIL_TAIL = "</artifact-trail>"


class ReplayClock:
    """A clock for the replayed read-file state: one tick per call, so later reads rank as more recent."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def instant_realpath() -> Callable[[str], str]:
    """``real_path`` (``os.path.realpath`` that never raises for a swap) remembered for one hook call: the disk is
    taken as it is at that instant (a file the hook re-attaches is still resolved again where it is opened, through
    the file gate)."""
    return functools.lru_cache(maxsize=None)(real_path)


def instant_stat() -> StatFn:
    """``os_stat`` remembered for one hook call, as ``instant_realpath``: a replay puts a file's record again at every
    read, write and edit of it (816 stats of 24 files at 1M tokens), each once stat-ed."""
    return functools.lru_cache(maxsize=None)(os_stat)


def display_path(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def fit(parts: Sequence[str], trail: Sequence[str], limit: int = HOOK_CHAR_LIMIT, *, header: str) -> str | None:
    """The header, then each part in order while it fits, then as many trail lines as fit: at most ``limit``
    characters in all (None when nothing but the header would be said)."""
    out = header
    for part in parts:
        if len(out) + 2 + len(part) <= limit:
            out += "\n\n" + part
    frame = 2 + len(TRAIL_HEAD) + 1 + len(TRAIL_TAIL)
    lines: list[str] = []
    room = limit - len(out) - frame
    for line in trail:
        if len(line) + 1 > room:
            break
        lines.append(line)
        room -= len(line) + 1
    if lines:
        out += "\n\n" + TRAIL_HEAD + "\n" + "\n".join(lines) + "\n" + TRAIL_TAIL
    return None if out == header else out


@dataclass(eq=False)
class HookWindow:
    """The window the model held before the compaction, against the disk as it is now: the files its messages used,
    the roots the hook may read them from, and the read-file state they leave."""

    messages: Sequence[Message]
    cwd: str
    uses: list[FileUse]
    roots: AllowedRoots
    state: ReadFileState
    counter: CharCounter
    side: dict[str, dict[str, Any]] | None = None


def hook_window(messages: Sequence[Message], cwd: str, side: dict[str, dict[str, Any]] | None = None) -> HookWindow:
    """``messages`` (``side``: Claude Code's side data by tool_use id) read against the disk at this instant."""
    counter = CharCounter()
    uses = file_uses(messages, cwd, side)
    realpath = instant_realpath()
    roots = allowed_roots(cwd, uses, realpath)
    state = ReadFileState(cwd=cwd, counter=counter, clock=ReplayClock(), realpath=realpath, stat=instant_stat())
    state.replay(messages, hashes=False)  # the hooks send no change notices: no hash is ever compared
    return HookWindow(messages, cwd, uses, roots, state, counter, side)


@dataclass(eq=False)
class HookContext:
    """A hook's context (``text``; None: nothing to add) and what went into it, for the log's figures."""

    text: str | None
    ledger: Ledger
    result: RehydrationResult
    parts: list[str]
    trail: list[str]
    roots: AllowedRoots

    def figures(self) -> dict[str, Any]:
        return {
            "ledgerLines": len(self.ledger.lines),
            "files": sum(1 for a in self.result.attachments if a.kind == "file"),
            "chars": len(self.text or ""),
            "trail": len(self.trail),
            "roots": list(self.roots.paths),
        }


def _as_is(text: str) -> str:
    return text


def hook_context(
    window: HookWindow,
    work: WorkingSet | None = None,
    *,
    kept: Iterable[str],
    budget: int,
    header: str,
    limit: int = HOOK_CHAR_LIMIT,
    plan: PlanState | None = None,
    plan_text: str | None = None,
    denied: Iterable[str] = (),
    lead: Sequence[str] = (),
    attachment: Callable[[str], str] = _as_is,
    escape: Callable[[str], str] = _as_is,
    checked: list[str] | None = None,
) -> HookContext:
    """The context after the agent's compaction: the ledger of ``work`` (by default what the window's messages did;
    with ``plan_text``'s open steps), the
    files ranked within ``budget`` characters but those verbatim in ``kept`` (what the agent's new context holds)
    and the ``denied`` ones (what it puts back itself), ``plan`` when it was lost, and the artifact trail, after
    ``lead`` and ``header`` within ``limit`` characters. ``attachment``: an attachment in the agent's own terms;
    ``escape``: any text as the agent must be sent it. ``checked``: rehydration's, the texts looked for in ``kept``."""
    cwd = window.cwd
    if work is None:
        work = WorkingSet(cwd=cwd)
        work.observe(window.messages, window.side)
    read = gated_reader(window.roots)
    ledger = build_ledger(work, read_text=read, cwd=cwd, plan_text=plan_text)
    result = rehydrate(
        read_state=window.state,
        kept_messages=already_in_context(kept),
        settings=hook_rehydration(budget),
        counter=window.counter,
        workspace_roots=list(window.roots.paths),
        plan=plan,
        denied_paths=frozenset(real_path(path) for path in denied),
        read_text=read,
        history=window.messages,
        ledger=ledger.text,
        checked=checked,
    )
    said = [*lead, *(attachment(a.text) for a in result.attachments if a.kind in ATTACHED_KINDS)]
    parts = [escape(text) for text in said]
    trail = [
        escape(f"- {display_path(e.path, cwd)}: {e.action}")
        for e in artifact_trail(window.messages, cwd)[:MAX_TRAIL_FILES]
    ]
    return HookContext(fit(parts, trail, limit, header=header), ledger, result, parts, trail, window.roots)
