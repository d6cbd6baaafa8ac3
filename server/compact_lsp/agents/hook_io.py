"""What the agents' hooks share at their door: the ``SessionStart`` input, the files they may re-read, and the
answer.

Claude Code, Codex and Qwen Code run their ``SessionStart`` hook with the same JSON on stdin (``parse_hook_input``;
another event, or a source the agent does not answer, is ``NotForUs``) and take the same answer (``hook_output``).
Files come only from ``allowed_roots``: the transcript's ``cwd`` (never what the server refuses as a root: ``/``, the
home directory, a folder holding it) and, outside it, only when the user configured it, the exact files the
transcript shows read or edited with success, file by file. The context itself is built in ``hook_context.py``,
each agent's specifics in its room's ``hook.py``: none imports another's transcript format.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from compact_lsp.agents.hook_claims import claim, claims_dir, installed_more_than_once, settings_places, transcript_mark
from compact_lsp.agents.hook_input import OUTSIDE_FILES_ENV, hook_json, session_fields
from compact_lsp.agents.not_for_us import NotForUs
from compact_lsp.engine.files.allowed_roots import too_wide
from compact_lsp.engine.files.credential_files import is_credential_file
from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.files.file_use_timeline import FileUse
from compact_lsp.engine.files.usable_path import real_path

if TYPE_CHECKING:
    from pathlib import Path

HOOK_EVENT = "SessionStart"
HOOK_SOURCE = "compact"


@dataclass(eq=False)
class HookInput:
    """The fields of the hook input (Claude Code's, and Codex's, which has the same shape) that the hooks use."""

    session_id: str
    transcript_path: str
    cwd: str
    event: str
    source: str | None
    fired_at: str | None = None
    """When the agent ran the hook, as it says (Qwen Code's ``timestamp``); unchecked text."""


def parse_hook_input(raw: bytes, sources: Sequence[str] = (HOOK_SOURCE,)) -> HookInput:
    """The hook input, or ``NotForUs``/``ValueError`` (both print nothing). ``sources``: the ``SessionStart``
    sources the agent's hook answers (Qwen Code's also ``resume``)."""
    data = hook_json(raw)
    event, source = data.get("hook_event_name"), data.get("source")
    if event != HOOK_EVENT or source not in sources:
        ours = " or ".join(repr(s) for s in sources)
        raise NotForUs(f"{event!r} with source {source!r}: only {HOOK_EVENT} with source {ours} is ours")
    fields = session_fields(data)
    fired_at = data.get("timestamp")
    return HookInput(
        fields["session_id"], fields["transcript_path"], fields["cwd"], event, source,
        fired_at if isinstance(fired_at, str) else None,
    )  # fmt: skip


def outside_files_configured() -> bool:
    return os.environ.get(OUTSIDE_FILES_ENV) == "1"


def allowed_roots(
    cwd: str,
    uses: Sequence[FileUse],
    realpath: Callable[[str], str] = real_path,
    *,
    outside_files: bool | None = None,
) -> AllowedRoots:
    """The transcript's cwd, unless the server would refuse it as a root (``/``, the home directory, a folder
    holding it: ``too_wide``); and only when the user configured it (``outside_files``, by default
    ``OUTSIDE_FILES_ENV``), each exact file outside it the agent read or edited with success that is, now, a
    regular file reached through no link at all and not a credential file: a file, never its directory, never
    what a link swapped in since points at. Nothing a transcript says admits an outside file by itself."""
    real_cwd = realpath(cwd)
    base = AllowedRoots.of(real_cwd) if too_wide(real_cwd) is None else AllowedRoots()
    if not (outside_files_configured() if outside_files is None else outside_files):
        return base
    files: list[str] = []
    seen: set[str] = set()
    named: set[str] = set()  # a file is used many times: its path is resolved once
    for use in uses:
        if use.creates or use.path in named:
            continue
        named.add(use.path)
        folder = os.path.dirname(use.path)
        if realpath(folder) != folder:  # a link on the way: bound to nothing we could name now
            continue
        real = use.path
        if real in seen:
            continue
        seen.add(real)
        if base.root_of(real) is not None or is_credential_file(real):
            continue
        try:
            if stat.S_ISREG(os.lstat(real).st_mode):
                files.append(real)
        except OSError:
            continue
    return base.plus(*files)


def hook_output(context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "additionalContext": context}})


class SessionStartHook(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def scope_help(self) -> Mapping[str, str]: ...

    def settings_path(self, scope: str, project_dir: str) -> Path: ...

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]: ...


def session_start_answer(
    agent: SessionStartHook,
    raw: bytes,
    *,
    budget: int,
    keep: list[object] | None,
    sources: Sequence[str] = (HOOK_SOURCE,),
) -> tuple[str | None, dict[str, Any]]:
    """The answer of an agent whose hook is ``SessionStart`` after its compaction (and, for ``sources`` beyond
    ``compact``, whatever else it answers): its ``hook_context`` as ``additionalContext``
    (``AgentBeside.hook_answer``)."""
    inp = parse_hook_input(raw, sources)
    mark = transcript_mark(inp.transcript_path)  # before the agent writes anything more (agents/hook_claims.py)
    if mark and inp.source != HOOK_SOURCE:
        mark = f"{mark}.{inp.source}"  # a resume is not the compaction that left the transcript as it is
    context, figures = agent.hook_context(inp, budget=budget, keep=keep)
    places = settings_places(agent.scope_help, agent.settings_path, inp.cwd) if context is not None else []
    if installed_more_than_once(places, agent.name) and not claim(claims_dir(), agent.name, mark):
        return None, {"session": inp.session_id, "reason": "this compaction was answered by our other install"}
    return (None if context is None else hook_output(context)), {"session": inp.session_id, **figures}
