"""Claude Code's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Claude Code re-attaches its five most recently touched files after a compaction and keeps its last assistant
message (``agents/character_fit.py`` has the measured rule). This hook reads the transcript from its end
back to the boundary before Claude Code's last one (``compaction_view.mapped_tail``), ranks every file the agent
used with the same rehydration the server runs after its own compactions, leaves out what Claude Code's new
context holds verbatim already (its summary, the preserved segment, the ``file`` attachments it wrote after the
boundary, or the rule's prediction when it wrote none), and answers with
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``, all of it within
Claude Code's inline limit (``HOOK_CHAR_LIMIT``, 10,000 characters), best first:

- the latest plan, when Claude Code's summary does not carry its open steps;
- further files, or the slices of big files the agent read or edited, re-read from disk through the file gate;
- a compact artifact trail: the files read, edited or written before the compaction, with their last action, as
  many as fit.

Files come only from the transcript's ``cwd`` (never the home directory or ``/`` itself) and, outside it, the
exact files the transcript shows read or edited with success (Claude Code asks before it works outside its
directory), by realpath and still regular files; a directory never becomes a root because a file in it was read
(``hook_io.allowed_roots``, shared with the Codex hook).

The hook must never break Claude Code (``hook_process.run_hook``): any other input, and any failure, prints
nothing and exits 0; why goes to stderr and the hook's log file, never to stdout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.agents.character_fit import DEFAULT_BUDGET, CharCounter, already_in_context, hook_rehydration
from compact_lsp.agents.claude_code.reattached import CLAUDE_CODE_MEMORY, predict_reattached
from compact_lsp.agents.hook_io import (
    HookInput,
    ReplayClock,
    allowed_roots,
    display_path,
    fit,
    instant_realpath,
    instant_stat,
)
from compact_lsp.engine.claude_code.branch import conversation_of
from compact_lsp.engine.claude_code.compaction_view import (
    mapped_tail,
    reattached_files,
    split_at_last_compaction,
    text_of,
)
from compact_lsp.engine.claude_code.log_lines import before_last_boundary, parse_log_lines
from compact_lsp.engine.compaction.rehydration import rehydrate
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses
from compact_lsp.engine.files.plan_state import PlanState, extract_plan
from compact_lsp.engine.files.read_state import ReadFileState

MAX_TRAIL_FILES = 60
MAX_TRANSCRIPT_TAIL_BYTES = 256 << 20
"""The most of a transcript the hook reads back from its end (far more than a 1M-token context)."""
HEADER = (
    "compact-lsp: context that Claude Code's compaction did not re-attach. Files were re-read from disk just now "
    "(current content). Use them instead of re-reading."
)


@dataclass(eq=False)
class ClaudeCodeContext:
    """What Claude Code's new context already holds: the files it put back (path, text) and other verbatim text."""

    files: list[tuple[str, str]]
    texts: list[str]
    observed: bool
    """True when ``files`` came from the transcript's ``file`` attachments, False when predicted by the rule."""


def claude_code_context(
    records_after: list[tuple[str, str]], uses: Sequence[FileUse], roots: AllowedRoots, extra: Sequence[str]
) -> ClaudeCodeContext:
    """Claude Code's re-attached files as its transcript shows them, else as its rule predicts (read now, whole,
    as it reads them), plus the memory files it loads itself and ``extra`` (its summary, the preserved segment)."""
    read = gated_reader(roots)
    files = list(records_after)
    observed = bool(files)
    if not observed:
        for path in predict_reattached(uses):
            try:
                files.append((path, read(path).decode("utf-8", errors="replace")))
            except OSError:
                continue
    for path in sorted({u.path for u in uses if os.path.basename(u.path) in CLAUDE_CODE_MEMORY}):
        try:
            files.append((path, read(path).decode("utf-8", errors="replace")))
        except OSError:
            continue
    return ClaudeCodeContext(files, [*extra, *(text for _, text in files)], observed)


def _plan_lost(plan: PlanState | None, summary: str) -> bool:
    """True when the plan has open steps that Claude Code's summary does not carry word for word."""
    if plan is None or not plan.text.strip():
        return False
    folded = " ".join(summary.lower().split())
    steps = [line.strip(" -*[]xX\t").lower() for line in plan.text.splitlines() if line.strip()]
    return any(step and " ".join(step.split()) not in folded for step in steps)


def build_context(
    messages: list[Message],
    side: dict[str, dict[str, Any]],
    cwd: str,
    *,
    summary: str = "",
    preserved: Sequence[str] = (),
    reattached: Sequence[tuple[str, str]] = (),
    budget: int = DEFAULT_BUDGET,
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for the conversation Claude Code compacted (None: nothing to add), and figures for
    the log: ``messages`` and ``side`` as ``claude_code/branch.conversation_of`` gives them (the messages and the
    results' side data); ``reattached``: the (path, text) of the ``file`` attachments it wrote after the boundary."""
    counter = CharCounter()
    uses = file_uses(messages, cwd, side)
    realpath = instant_realpath()
    roots = allowed_roots(cwd, uses, realpath)
    state = ReadFileState(cwd=cwd, counter=counter, clock=ReplayClock(), realpath=realpath, stat=instant_stat())
    state.replay(messages, hashes=False)  # the hooks send no change notices: no hash is ever compared
    own = claude_code_context(list(reattached), uses, roots, [summary, *preserved])
    plan = extract_plan(messages)
    result = rehydrate(
        read_state=state,
        kept_messages=already_in_context(own.texts),
        settings=hook_rehydration(budget),
        counter=counter,
        workspace_roots=list(roots.paths),
        plan=plan if _plan_lost(plan, summary) else None,
        denied_paths=frozenset(os.path.realpath(path) for path, _ in own.files),
        read_text=gated_reader(roots),
        history=messages,
    )
    parts = [a.text for a in result.attachments if a.kind in ("plan", "file", "file-deleted")]
    trail = [f"- {display_path(e.path, cwd)}: {e.action}" for e in artifact_trail(messages, cwd)[:MAX_TRAIL_FILES]]
    context = fit(parts, trail, header=HEADER)
    figures = {
        "files": sum(1 for a in result.attachments if a.kind == "file"),
        "plan": any(a.kind == "plan" for a in result.attachments),
        "fileChars": result.file_tokens,
        "chars": len(context or ""),
        "claudeCodeFiles": len(own.files),
        "claudeCodeFilesFrom": "transcript" if own.observed else "rule",
        "trail": len(trail),
        "roots": list(roots.paths),
    }
    return context, figures


def context_for(
    inp: HookInput, *, budget: int = DEFAULT_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call: the transcript read back from its end to the boundary before
    Claude Code's last compaction (its records and messages left in ``keep`` when given, not freed)."""
    if not os.path.lexists(inp.transcript_path):
        raise FileNotFoundError(f"no Claude Code session log at {inp.transcript_path}")
    with mapped_tail(inp.transcript_path, 2, max_bytes=MAX_TRANSCRIPT_TAIL_BYTES) as (data, start, end):
        records, _ = parse_log_lines(data, start=start, end=end, copy=False, lean=True)  # nothing outlives the answer
    before, summary = before_last_boundary(records)
    split = split_at_last_compaction(records, [r for r in records if r.message is not None])
    messages, side = conversation_of(before)
    if keep is not None:
        keep.append((records, messages, side))
    return build_context(
        messages,
        side,
        inp.cwd,
        summary=summary or "",
        preserved=[text_of(r) for r in split.preserved],
        reattached=reattached_files(records),
        budget=budget,
    )
