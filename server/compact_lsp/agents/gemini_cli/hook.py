"""Gemini CLI's ``BeforeModel`` hook: after a compression, our context joins the summary on every request.

Gemini CLI 0.61.0 (measured 2026-12-06, docs/gemini-cli.md) has no event after its compression (``SessionStart``
fires for startup, resume and clear only). ``BeforeModel`` runs before every model request with a text-only view
of it (``llm_request.messages: [{role, content}]``, one per content that has text) and may answer
``hookSpecificOutput.llm_request.messages``: the answered messages replace the texts of the request's contents in
order (a content's text parts become one, its other parts — function calls and responses — are kept after it);
contents past the last answered message are left as they are. The rewrite is not kept in the CLI's history, so it
is made again on every request.

After a compression the request starts with the summary, a ``user`` text, followed by the model's fixed
acknowledgement (``COMPRESSION_ACK``). The hook answers the messages up to the summary, the summary with our
context after it, and nothing else: no ``model`` or ``config`` (answering ``config`` would drop the request's
tools and system instruction), no message after the summary. Without an acknowledgement in the request there is
nothing to do: the hook prints nothing and logs nothing, decided before this module is imported (agent.py: it
runs on every request).

Our context is what the server re-attaches after its own compactions, for the window the compression summarised
(transcript.py): the ledger, the current content of the files and regions read (re-read from disk now), the
artifact trail, within ``GEMINI_CONTEXT_LIMIT`` characters — Gemini CLI sets no limit and sends it on every
request, so the budget is ours. Text is not escaped. Files come only from the allowed roots
(``hook_io.allowed_roots``: the session's ``cwd``, never ``/`` or the home directory, outside it only what the
user configured), through the file gate; credential-class files never.
"""

from __future__ import annotations

from typing import Any

from compact_lsp.agents.gemini_cli.request import TAG, ToBuild, probes_of, remember, signature, with_context
from compact_lsp.agents.gemini_cli.transcript import GeminiWindow, window
from compact_lsp.agents.hook_context import hook_context, hook_window
from compact_lsp.engine.files.file_use_timeline import file_uses

GEMINI_CONTEXT_LIMIT = 24_000
"""Our context's characters in all (about 6,000 tokens): Gemini CLI sets no limit and sends it on every request."""
GEMINI_BUDGET = 20_000
"""Characters of files and slices within ``GEMINI_CONTEXT_LIMIT``; the framing, ledger and trail take the rest."""
HEADER = (
    "compact-lsp: context Gemini CLI's compression dropped. Files were re-read from disk just now (current "
    "content); use them instead of reading them again."
)


def build_context(
    window: GeminiWindow, cwd: str, *, budget: int = GEMINI_BUDGET, checked: list[str] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """Our context after the compression (None: nothing to add), and figures for the log; ``checked`` gets the
    texts rehydration looked for in what the request holds verbatim."""
    built = hook_context(
        hook_window(window.messages, cwd), kept=[window.summary, *window.kept_texts], budget=budget,
        header=HEADER, limit=GEMINI_CONTEXT_LIMIT - len(TAG) * 2 - 8, checked=checked,
    )  # fmt: skip
    return built.text, built.figures()


def build_answer(
    needed: ToBuild, figures: dict[str, Any], *, budget: int = GEMINI_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The answer when nothing is remembered for the request (``request.quick_answer``'s third value): built from
    the session file and the disk within ``budget``, then remembered with what it depends on (request.py). None:
    leave the request as it is."""
    cwd = needed.fields["cwd"]
    found = window(needed.data, cwd)
    if keep is not None:
        keep.append(found)
    named = {use.path: signature(use.path) for use in file_uses(found.messages, cwd)}  # before they are read
    checked: list[str] = []
    if found.messages:
        context, built = build_context(found, cwd, budget=budget, checked=checked)
        figures.update(built)
    else:
        context = None
        figures["reason"] = "no file was used before the compression"
    remember(needed.fields["transcript_path"], needed.key, context, named, probes_of(checked), needed.calls)
    if context is None:
        return None, figures
    figures["summaryAt"] = needed.index
    return with_context(needed.messages, needed.index, context), figures
