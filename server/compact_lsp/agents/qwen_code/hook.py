"""Qwen Code's ``SessionStart`` hook after its compaction (``source: "compact"``): add what it does not put back.

Qwen Code 0.24.4 (measured 2026-12-05, docs/qwen-code.md) re-reads up to ``QWEN_FILES`` recently read, edited or
written files from disk after its summary (its setting or environment changes the count: tuning.py), each whole up
to ``QWEN_FILE_TOKENS`` (a larger one by name only). Those are modelled (``qwen_restored``) and not repeated; the
hook adds what it misses: the ledger, the slices of big files, files read through shell commands, further files,
and the artifact trail, ranked by the rehydration the server runs after its own compactions.

A session resumed (``qwen --continue``, ``--resume``; ``source: "resume"``) gets back its history from the
transcript, Qwen's summary and re-read files with it, but not our block: Qwen kept it in memory only (measured
2026-12-06). When the session was compacted before, the hook answers what it answered after that compaction, its
files re-read now; for a session never compacted, nothing.

Qwen puts ``additionalContext`` in its system instruction with **no size limit**, on every later request: the
budget is ours (``QWEN_CONTEXT_LIMIT`` characters in all). It escapes ``<`` and ``>`` to ``&lt;``/``&gt;`` and
leaves ``&`` as it is, so the hook escapes ``&`` to ``&amp;`` itself (``escaped_for_qwen``): the model then
receives ordinary HTML-escaped text, which the header says, and code cannot be misread (a file holding ``&lt;``
arrives as ``&amp;lt;``).

Files come only from the allowed roots (``hook_io.allowed_roots``: the session's ``cwd``, never ``/`` or the home
directory, and outside it only what the user configured), re-read now through the file gate, credential-class
files never.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from compact_lsp.agents.hook_context import hook_context, hook_window
from compact_lsp.agents.hook_io import HookInput
from compact_lsp.agents.qwen_code.transcript import QwenWindow, read_window
from compact_lsp.agents.qwen_code.tuning import QWEN_FILES, qwen_files, qwen_setting
from compact_lsp.engine.files.file_gate import gated_texts
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses

RESUME = "resume"
QWEN_FILE_TOKENS = 5_000
"""Each comes back whole up to this many tokens (about 20,000 characters); a larger one by name only."""
QWEN_TOTAL_TOKENS = 50_000
QWEN_CHARS_PER_TOKEN = 4
QWEN_CONTEXT_LIMIT = 24_000
"""Our answer's characters in all (about 6,000 tokens): Qwen sets no limit and sends it on every request."""
QWEN_BUDGET = 20_000
"""Characters of files and slices within ``QWEN_CONTEXT_LIMIT``; the framing, ledger and trail take the rest."""
HEADER = (
    "compact-lsp: context Qwen Code's compaction did not put back (it re-read its recent files itself). Files "
    "were re-read from disk just now (current content); use them instead of reading them again. This block is "
    "HTML-escaped (Qwen Code escapes angle brackets): read &lt; as the less-than sign, &gt; as the greater-than "
    "sign and &amp; as the ampersand."
)

NOTHING_SINCE = (
    "compact-lsp: nothing to add after this compaction: no file was read or changed since Qwen Code's previous "
    "compaction that it did not put back itself."
)
"""The answer after a later compaction with nothing to add: with none, Qwen keeps the previous block (its
``tryCompressChat`` puts the last SessionStart context back when the new one is empty; 0.24.4), whose files would
stand as they were then."""


def escaped_for_qwen(text: str) -> str:
    """``&`` as ``&amp;``: with Qwen's own ``<``/``>`` escaping, the model receives ordinary HTML-escaped text."""
    return text.replace("&", "&amp;")


def qwen_restored(
    uses: Sequence[FileUse], text_of: Callable[[str], str | None], files: int = QWEN_FILES
) -> tuple[list[str], list[str]]:
    """Qwen Code's own restoration: the ``files`` files most recently read, edited or written, newest first, each
    whole (re-read from disk) up to ``QWEN_FILE_TOKENS``, by name past it, within ``QWEN_TOTAL_TOKENS``: (files
    whole, files by name)."""
    recent: list[str] = []
    for use in reversed(uses) if files > 0 else ():
        if use.path not in recent:
            recent.append(use.path)
            if len(recent) == files:
                break
    whole: list[str] = []
    by_name: list[str] = []
    total = 0
    for path in recent:
        text = text_of(path)
        if text is None:
            continue
        tokens = -(-len(text) // QWEN_CHARS_PER_TOKEN)
        if tokens > QWEN_FILE_TOKENS:
            by_name.append(path)
        elif total + tokens <= QWEN_TOTAL_TOKENS:
            total += tokens
            whole.append(path)
    return whole, by_name


def build_context(qwen: QwenWindow, cwd: str, *, budget: int = QWEN_BUDGET) -> tuple[str | None, dict[str, Any]]:
    """The additional context after Qwen's compaction (None: nothing to add), and figures for the log."""
    window = hook_window(qwen.messages, cwd)
    text_of = gated_texts(window.roots)
    # Qwen re-reads only files its own tools touched: a file read through the shell is ours to add
    files = qwen_files(os.environ, qwen_setting(cwd))
    whole, by_name = qwen_restored(file_uses(qwen.own_messages(), cwd), text_of, files)
    built = hook_context(
        window, kept=[qwen.summary, *(t for p in whole if (t := text_of(p)) is not None)], budget=budget,
        header=HEADER, limit=QWEN_CONTEXT_LIMIT, denied=whole, escape=escaped_for_qwen,
    )  # fmt: skip
    figures = {**built.figures(), "qwenFiles": len(whole), "qwenByName": len(by_name)}
    if files != QWEN_FILES:
        figures["qwenRecentFiles"] = files  # Qwen told to re-read another number (tuning.py)
    return built.text, figures


def context_for(
    inp: HookInput, *, budget: int = QWEN_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call (``hook_process.run_hook`` with ``agent="qwen-code"``): after a
    compaction, or for a session resumed (``RESUME``), what the last compaction's answer was, re-read now."""
    if not os.path.lexists(inp.transcript_path):
        raise FileNotFoundError(f"no Qwen Code transcript at {inp.transcript_path}")
    resumed = inp.source == RESUME
    # resumed: the transcript is whole (Qwen read it back), and the window is the last compaction's
    qwen = read_window(inp.transcript_path, inp.cwd, None if resumed else inp.fired_at)
    if keep is not None:
        keep.append(qwen)
    if resumed and not qwen.compactions:
        return None, {"reason": "a session resumed that was never compacted: it lost nothing of ours"}
    if not qwen.messages:
        text, figures = None, {"reason": "no file was used before the compaction", "compactions": qwen.compactions}
    else:
        text, figures = build_context(qwen, inp.cwd, budget=budget)
    if qwen.unwritten:
        figures["recordNotWrittenYet"] = True  # not in the file even after waiting
    if qwen.waited:
        figures["waitedForRecord"] = qwen.waited  # seconds
    if resumed:
        figures["resumed"] = True
    if text is None and qwen.compactions > 1 and not resumed:
        # Qwen puts the previous block back when the hook answers nothing: its files as they were then
        return NOTHING_SINCE, {**figures, "replaces": "the previous compaction's block"}
    return text, figures
