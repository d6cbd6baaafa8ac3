"""Codex CLI's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Codex compacts by asking the model for a summary and starting a new history from it and the user's own messages;
every file the agent read or patched is gone from it. When Codex runs the hook (``source: "compact"``), the
rollout already holds the ``compacted`` record. The hook reads the rollout, turns the history before that record
into the engine's file uses (``engine/codex/file_uses.py``), ranks them with the rehydration the server runs
after its own compactions, leaves out what Codex's new history holds verbatim, and answers with
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``, which Codex sends to the
model as a developer message.

Codex delivers ``additionalContext`` whole only up to ``CODEX_INLINE_LIMIT`` characters (beyond it the model gets
a head-and-tail preview): everything we add — files and slices (best ranked first), the artifact trail, the
framing — fits in that many characters.

Files come only from the allowed roots: the session's ``cwd`` (never the home directory or ``/`` itself) and,
outside it, exactly the files the rollout shows read or patched with success, file by file. Everything is re-read
now through the file gate.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from compact_lsp.engine.codex.file_uses import file_use_view
from compact_lsp.engine.codex.rollout import CodexRollout, read_rollout
from compact_lsp.engine.compaction.hook_policy import already_in_context, hook_rehydration
from compact_lsp.engine.compaction.rehydration import rehydrate
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses
from compact_lsp.engine.files.read_state import ReadFileState

HOOK_EVENT = "SessionStart"
HOOK_SOURCE = "compact"
CODEX_INLINE_LIMIT = 10_000
"""Characters of ``additionalContext`` Codex delivers whole (measured with codex-cli 0.171.0: docs/codex.md)."""
TOKEN_BUDGET = 4_000
"""Tokens rehydration may rank into; the character limit then decides what is sent."""
MAX_TRAIL_FILES = 40
HEADER = (
    "compact-lsp: files Codex's compaction dropped, re-read from disk just now (current content). "
    "Use them instead of reading them again."
)


class NotForUs(Exception):
    """Input the hook has nothing to add for (another event, another source): print nothing."""


def parse_hook_input(raw: bytes) -> dict[str, str]:
    """The hook input's ``session_id``, ``transcript_path`` and ``cwd``, or ``NotForUs``/``ValueError``."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    event, source = data.get("hook_event_name"), data.get("source")
    if event != HOOK_EVENT or source != HOOK_SOURCE:
        raise NotForUs(f"{event!r} with source {source!r}: only {HOOK_EVENT} with source {HOOK_SOURCE!r} is ours")
    fields: dict[str, str] = {}
    for key in ("session_id", "transcript_path", "cwd"):
        value = data.get(key)
        if not isinstance(value, str) or not value or "\x00" in value or len(value) > 4096:
            raise ValueError(f"hook input: {key!r} must be a non-empty string")
        fields[key] = value
    if not os.path.isabs(fields["transcript_path"]) or not os.path.isabs(fields["cwd"]):
        raise ValueError("hook input: transcript_path and cwd must be absolute paths")
    return fields


def _never_roots() -> set[str]:
    return {os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)}


def allowed_roots(cwd: str, uses: Sequence[FileUse]) -> AllowedRoots:
    """``cwd`` (unless it is home or ``/``) plus each file outside it that the agent used with success."""
    never = _never_roots()
    base = os.path.realpath(cwd)
    inside = base not in never
    outside = []
    for use in uses:
        real = os.path.realpath(use.path)
        if use.creates or (inside and (real == base or real.startswith(base + os.sep))):
            continue
        if real not in never:
            outside.append(real)
    return AllowedRoots.of(base if inside else None, *sorted(set(outside)))


def _display(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def fit(parts: Sequence[str], limit: int) -> tuple[str, int]:
    """The header and as many parts as fit in ``limit`` characters, in order (a part too big is skipped)."""
    text, used = HEADER, 0
    for part in parts:
        candidate = f"{text}\n\n{part}"
        if len(candidate) <= limit:
            text, used = candidate, used + 1
    return text, used


def _trail(view: list[Message], cwd: str) -> str | None:
    trail = artifact_trail(view, cwd)[:MAX_TRAIL_FILES]
    if not trail:
        return None
    lines = "\n".join(f"- {_display(entry.path, cwd)}: {entry.action}" for entry in trail)
    return f'<artifact-trail note="files touched before the compaction, most recent first">\n{lines}\n</artifact-trail>'


def build_context(
    rollout: CodexRollout, cwd: str, counter: TokenCounter, *, limit: int = CODEX_INLINE_LIMIT
) -> tuple[str | None, dict[str, Any]]:
    """The additional context after the rollout's last compaction (None: nothing to add), and log figures."""
    compaction = rollout.last_compaction
    if compaction is None:
        return None, {"reason": "the rollout has no compaction"}
    view = file_use_view(rollout.before_last_compaction(), cwd)
    uses = file_uses(view, cwd)
    roots = allowed_roots(cwd, uses)
    state = ReadFileState(cwd=cwd, counter=counter, clock=_Ticks())
    state.observe(view)
    result = rehydrate(
        read_state=state,
        kept_messages=already_in_context([compaction.summary, *compaction.kept_texts]),
        settings=hook_rehydration(TOKEN_BUDGET),
        counter=counter,
        workspace_roots=list(roots.paths),
        plan=None,
        read_text=gated_reader(roots),
        history=view,
    )
    files = [a.text for a in result.attachments if a.kind in ("file", "file-deleted")]
    trail = _trail(view, cwd)
    text, used = fit([*files, *([trail] if trail else [])], limit)
    figures = {
        "ranked": len(files),
        "sent": used,
        "trail": trail is not None,
        "chars": len(text),
        "roots": len(roots.paths),
    }
    return (text if used else None), figures


class _Ticks:
    """A clock for the replayed read-file state: one tick per call, so later reads rank as more recent."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def hook_output(context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "additionalContext": context}})


def context_for(fields: dict[str, str], counter: TokenCounter) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call."""
    rollout = read_rollout(fields["transcript_path"])
    return build_context(rollout, fields["cwd"], counter)
