"""Claude Code's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Claude Code re-attaches its five most recently touched files after a compaction and keeps its last assistant
message (``agents/claude_code/reattached.py`` has the measured rule). It runs this hook before it writes the
compaction's boundary, summary and attachments, so the last boundary on disk is the previous compaction's: this hook
reads the transcript from its end back to that boundary (``compaction_view.mapped_tail``, with the segment it
preserved), the window the model held just before this compaction; ranks every file the agent used in it with the
same rehydration the server runs after its own compactions; leaves out what Claude Code's new context will hold
verbatim (the last assistant message, the files its rule predicts it puts back, counting those the previous
compaction put back among the files it holds); and answers with
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``, all of it within
Claude Code's inline limit (``HOOK_CHAR_LIMIT``, 10,000 characters), best first:

- the ledger (engine/compaction/ledger.py): the files the agent changed and their lines, the files it read that
  changed since, its last test, build and command with their exit status, checked against the disk now;
- the latest plan, when it has open steps (the new summary is not written yet to be checked for them);
- further files, or the slices of big files the agent read or edited, re-read from disk through the file gate;
- a compact artifact trail: the files read, edited or written before the compaction, with their last action, as
  many as fit.

Files come only from the transcript's ``cwd`` (never ``/``, the home directory or a folder holding it) and,
outside it, only when the user configured it (``hook_io.OUTSIDE_FILES_ENV``), the exact files the transcript
shows read or edited with success, reached through no link and never credential files; a directory never becomes
a root because a file in it was read (``hook_io.allowed_roots``, shared with the Codex hook).

The hook must never break Claude Code (``hook_process.run_hook``): any other input, and any failure, prints
nothing and exits 0; why goes to stderr and the hook's log file, never to stdout.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.agents.character_fit import DEFAULT_BUDGET
from compact_lsp.agents.claude_code.reattached import (
    CLAUDE_CODE_FILES,
    CLAUDE_CODE_MEMORY,
    FileTouch,
    claude_code_reattachment,
)
from compact_lsp.agents.hook_context import display_path, hook_context, hook_window
from compact_lsp.agents.hook_io import HookInput
from compact_lsp.engine.claude_code.branch import conversation_of
from compact_lsp.engine.claude_code.compaction_view import mapped_tail, reattached_files, with_preserved
from compact_lsp.engine.claude_code.log_lines import LogRecord, parse_log_lines
from compact_lsp.engine.conversation.messages import Message, blocks_of
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_texts
from compact_lsp.engine.files.file_use_timeline import FileUse
from compact_lsp.engine.files.plan_state import PlanState, extract_plan

TUI_ENTRYPOINT = "cli"
"""The ``entrypoint`` Claude Code stamps on a session's records in its interactive TUI (print mode: ``sdk-cli``)."""
UNSURE_NOTE = (
    "<claude-code-choice>Claude Code put back up to five of these files whole just above (which five is not "
    "predictable in its terminal UI), so they are not repeated here; read again any of them that is not above "
    "before relying on it: {files}</claude-code-choice>"
)
MAX_TRANSCRIPT_TAIL_BYTES = 256 << 20
"""The most of a transcript the hook reads back from its end (far more than a 1M-token context)."""
HEADER = (
    "compact-lsp: context that Claude Code's compaction did not re-attach. Files were re-read from disk just now "
    "(current content). Use them instead of re-reading."
)


@dataclass(eq=False)
class ClaudeCodeContext:
    """What Claude Code's new context will hold: the files it puts back (path, text) and other verbatim text."""

    files: list[tuple[str, str]]
    texts: list[str]
    by_name: list[str]
    """Files Claude Code names only (past its size cut): the hook's to attach."""
    unsure: list[str]
    """Files Claude Code may or may not put back whole (its TUI's choice is not predictable): named, not sent."""


@dataclass(frozen=True)
class HeldFile:
    """A file the previous compaction re-attached: in the model's context and Claude Code's read state since."""

    path: str
    tool: str = "Read"


def claude_code_context(
    uses: Sequence[FileUse],
    held: Sequence[str],
    roots: AllowedRoots,
    extra: Sequence[str],
    *,
    predictable: bool = True,
) -> ClaudeCodeContext:
    """Claude Code's re-attached files as its rule predicts them (read now, whole, as it reads them; a file past its
    size cut comes back by name only, so it is not counted as held) from the files it holds (``held``: what the
    previous compaction put back, then ``uses``), plus the memory files it loads itself and ``extra`` (the message
    it keeps verbatim). Not ``predictable`` (its TUI): any file it holds under the size cut may be among its five,
    so each is ``unsure``."""
    text_of = gated_texts(roots)

    holds: list[FileTouch] = [*(HeldFile(p) for p in held), *uses]
    theirs = claude_code_reattachment(holds, text_of, limit=CLAUDE_CODE_FILES if predictable else len(holds))
    files = [(path, text) for path in theirs.whole if (text := text_of(path)) is not None]
    unsure = [] if predictable else [path for path, _ in files]
    files = files if predictable else []
    for path in sorted({u.path for u in uses if os.path.basename(u.path) in CLAUDE_CODE_MEMORY}):
        if (text := text_of(path)) is not None:
            files.append((path, text))
    return ClaudeCodeContext(files, [*extra, *(text for _, text in files)], theirs.by_name, unsure)


def _plan_lost(plan: PlanState | None, summary: str) -> bool:
    """True when the plan has open steps that Claude Code's summary does not carry word for word."""
    if plan is None or not plan.text.strip():
        return False
    folded = " ".join(summary.lower().split())
    steps = [line.strip(" -*[]xX\t").lower() for line in plan.text.splitlines() if line.strip()]
    return any(step and " ".join(step.split()) not in folded for step in steps)


def _last_assistant_text(messages: Sequence[Message]) -> str:
    """The text of the last assistant message: what Claude Code keeps verbatim after its summary."""
    for message in reversed(messages):
        if message["role"] == "assistant":
            return "\n".join(str(b.get("text", "")) for b in blocks_of(message) if b.get("type") == "text")
    return ""


def build_context(
    messages: list[Message],
    side: dict[str, dict[str, Any]],
    cwd: str,
    *,
    held: Sequence[str] = (),
    summary: str = "",
    budget: int = DEFAULT_BUDGET,
    predictable: bool = True,
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for the conversation Claude Code is compacting now (None: nothing to add), and
    figures for the log: ``messages`` and ``side`` as ``claude_code/branch.conversation_of`` gives them (the
    messages and the results' side data) for the window the model held; ``held``: the files the previous
    compaction put back in it; ``summary``: Claude Code's new summary when it is known (it is not yet written when
    the hook runs, so a plan with open steps comes back)."""
    window = hook_window(messages, cwd, side)
    last = [_last_assistant_text(messages)]
    own = claude_code_context(window.uses, held, window.roots, last, predictable=predictable)
    plan = extract_plan(messages)
    unsure = [UNSURE_NOTE.format(files=", ".join(display_path(p, cwd) for p in own.unsure))] if own.unsure else []
    built = hook_context(
        window, kept=own.texts, budget=budget, header=HEADER, plan=plan if _plan_lost(plan, summary) else None,
        denied=[*(p for p, _ in own.files), *own.unsure], lead=unsure,
    )  # fmt: skip
    figures = {
        **built.figures(),
        "plan": any(a.kind == "plan" for a in built.result.attachments),
        "fileChars": built.result.file_tokens,
        "claudeCodeFiles": len(own.files),
        "claudeCodeByName": len(own.by_name),
        "claudeCodeUnsure": len(own.unsure),
        "held": len(held),
    }
    return built.text, figures


def context_for(
    inp: HookInput, *, budget: int = DEFAULT_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call: the window the model held just before this compaction, read
    from the last boundary on disk (Claude Code runs the hook before it writes this compaction's boundary, so the
    last one on disk is the previous compaction's, or there is none), with the segment it preserved (its records
    and messages left in ``keep`` when given, not freed)."""
    if not os.path.lexists(inp.transcript_path):
        raise FileNotFoundError(f"no Claude Code session log at {inp.transcript_path}")
    with mapped_tail(inp.transcript_path, 1, max_bytes=MAX_TRANSCRIPT_TAIL_BYTES) as (data, start, end):
        start = with_preserved(data, start, end)
        records, _ = parse_log_lines(data, start=start, end=end, copy=False, lean=True)  # nothing outlives the answer
    messages, side = conversation_of(records)
    if keep is not None:
        keep.append((records, messages, side))
    held = [path for path, _ in reattached_files(records)]
    return build_context(messages, side, inp.cwd, held=held, budget=budget, predictable=_predictable(records))


def _predictable(records: Sequence[LogRecord]) -> bool:
    """Whether Claude Code's choice of files is its measured rule: not in its interactive TUI (the ``entrypoint``
    of the session's last message record is ``cli``), where the same turn re-attached a different five each run."""
    last = next((r for r in reversed(records) if r.message is not None and r.data.get("entrypoint")), None)
    return last is None or last.data.get("entrypoint") != TUI_ENTRYPOINT
