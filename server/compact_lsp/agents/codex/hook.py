"""Codex CLI's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Codex compacts by asking the model for a summary and starting a new history from it and the user's own messages;
every file the agent read or patched is gone from it. When Codex runs the hook (``source: "compact"``), the
rollout already holds the ``compacted`` record. The hook reads the rollout, turns the window before that record
(since the compaction before it, when there was one: what the model worked with) into the engine's file uses
(``engine/codex/file_uses.py``), ranks them with the rehydration the server runs after its own compactions, leaves
out what Codex's new history holds verbatim, and answers with
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``, which Codex sends to the
model as a developer message.

The ledger comes first (engine/compaction/ledger.py): the files the agent patched, the files it read that changed
since, its last test, build and command with their exit status, and its open ``update_plan`` steps.

Codex delivers ``additionalContext`` whole only up to ``CODEX_INLINE_LIMIT`` characters (beyond it the model gets
a head-and-tail preview): everything we add — files and slices (best ranked first), the artifact trail, the
framing — fits in that many characters, budgeted in characters as every agent's hook is (the build is shared:
``agents/hook_context.py``; the input and ``allowed_roots``: ``agents/hook_io.py``).

A big file's read hints (its note, its omitted-lines markers, its outline) name ``sed -n 'FIRST,LASTp'``, the way
Codex reads, not the Read tool's ``offset``/``limit`` (``codex_reads``).

Files come only from the allowed roots (``hook_io.allowed_roots``): the session's ``cwd`` (never ``/``, the home
directory or a folder holding it) and, outside it, only when the user configured it, exactly the files the
rollout shows read or patched with success, file by file. A read is a read only when the command exited 0 and
printed the file (``engine/files/read_outcome.py``). Everything is re-read now through the file gate.
"""

from __future__ import annotations

import re
from typing import Any

from compact_lsp.agents.character_fit import DEFAULT_BUDGET, HOOK_CHAR_LIMIT
from compact_lsp.agents.hook_context import hook_context, hook_window
from compact_lsp.agents.hook_io import HookInput
from compact_lsp.engine.codex.file_uses import file_use_view
from compact_lsp.engine.codex.rollout import CodexRollout, read_rollout
from compact_lsp.engine.codex.working_set import codex_working_set
from compact_lsp.engine.files.plan_state import extract_plan
from compact_lsp.engine.prompts import FILE_OUTLINE_HEADER

CODEX_INLINE_LIMIT = HOOK_CHAR_LIMIT
"""Characters of ``additionalContext`` Codex delivers whole (10,000, as Claude Code; docs/codex.md)."""
HEADER = (
    "compact-lsp: files Codex's compaction dropped, re-read from disk just now (current content). "
    "Use them instead of reading them again."
)


NOTE_HINT = ("read it with offset=FIRST limit=COUNT", "print the lines with sed -n 'FIRST,LASTp' on it")
"""The engine's notes name the Read tool's ``offset``/``limit``; Codex has no such tool: it reads with ``sed -n``."""
CODEX_OUTLINE_HEADER = FILE_OUTLINE_HEADER.replace("read one with offset=FIRST", "print one with sed -n 'FIRST,LASTp'")
_OUTLINE_HEADER = re.compile(rf"^{re.escape(FILE_OUTLINE_HEADER)}$", re.M)
_OMITTED = re.compile(r"^\[\.\.\. lines (\d+)-(\d+) omitted: offset=\d+ limit=\d+ \.\.\.\]$", re.M)


def codex_reads(attachment: str) -> str:
    """An attachment's read hints in Codex's terms: the note in its tag, the outline's header and each omitted-lines
    marker (whole lines of the engine's own forms: a line of the file's text in exactly that form would change too)."""
    tag, newline, body = attachment.partition("\n")
    body = _OUTLINE_HEADER.sub(lambda m: CODEX_OUTLINE_HEADER, body)
    body = _OMITTED.sub(lambda m: f"[... lines {m[1]}-{m[2]} omitted: sed -n '{m[1]},{m[2]}p' ...]", body)
    return tag.replace(*NOTE_HINT) + newline + body


def build_context(
    rollout: CodexRollout, cwd: str, *, budget: int = DEFAULT_BUDGET
) -> tuple[str | None, dict[str, Any]]:
    """The additional context after the rollout's last compaction (None: nothing to add), and log figures."""
    compaction = rollout.last_compaction
    if compaction is None:
        return None, {"reason": "the rollout has no compaction"}
    before = rollout.window_before_last_compaction()  # a session compacted before: the window since then
    window = hook_window(file_use_view(before, cwd), cwd)
    work = codex_working_set(before, cwd)  # the files, told as exactly as the rollout says; then the commands
    plan = extract_plan(before)
    built = hook_context(
        window, work, kept=[compaction.summary, *compaction.kept_texts], budget=budget, header=HEADER,
        limit=CODEX_INLINE_LIMIT, plan_text=plan.text if plan else None, attachment=codex_reads,
    )  # fmt: skip
    return built.text, built.figures()


def context_for(
    inp: HookInput, *, budget: int = DEFAULT_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call (``companion/hook_process.run_hook`` with ``agent="codex"``; the
    rollout left in ``keep`` when given, not freed)."""
    rollout = read_rollout(inp.transcript_path)
    if keep is not None:
        keep.append(rollout)
    return build_context(rollout, inp.cwd, budget=budget)
