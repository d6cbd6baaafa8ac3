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

import json
import os
from typing import Any

from compact_lsp.agents.character_fit import CharCounter, already_in_context, hook_rehydration
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK
from compact_lsp.agents.gemini_cli.transcript import GeminiWindow, read_window
from compact_lsp.agents.hook_io import (
    ReplayClock,
    allowed_roots,
    display_path,
    fit,
    instant_realpath,
    instant_stat,
)
from compact_lsp.agents.not_for_us import NotForUs
from compact_lsp.engine.compaction.ledger import build_ledger
from compact_lsp.engine.compaction.rehydration import rehydrate
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import gated_reader
from compact_lsp.engine.files.file_use_timeline import file_uses
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.files.usable_path import checked_path
from compact_lsp.engine.files.working_set import WorkingSet

HOOK_EVENT = "BeforeModel"
GEMINI_CONTEXT_LIMIT = 24_000
"""Our context's characters in all (about 6,000 tokens): Gemini CLI sets no limit and sends it on every request."""
GEMINI_BUDGET = 20_000
"""Characters of files and slices within ``GEMINI_CONTEXT_LIMIT``; the framing, ledger and trail take the rest."""
MAX_TRAIL_FILES = 60
MAX_MESSAGES = 100_000
HEADER = (
    "compact-lsp: context Gemini CLI's compression dropped. Files were re-read from disk just now (current "
    "content); use them instead of reading them again."
)
TAG = "compact-lsp-context"


def summary_index(messages: list[dict[str, str]]) -> int | None:
    """The index of the last summary: a ``user`` message the model's acknowledgement follows."""
    for i in range(len(messages) - 2, -1, -1):
        if (
            messages[i]["role"] == "user"
            and messages[i + 1]["role"] == "model"
            and messages[i + 1]["content"].strip() == COMPRESSION_ACK
        ):
            return i
    return None


def parse_input(raw: bytes) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The hook input's session fields and its request's messages; ``NotForUs`` or ``ValueError`` otherwise."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    if data.get("hook_event_name") != HOOK_EVENT:
        raise NotForUs(f"{data.get('hook_event_name')!r}: only {HOOK_EVENT} is ours")
    fields: dict[str, str] = {}
    for key in ("session_id", "transcript_path", "cwd"):
        value = data.get(key)
        if not isinstance(value, str) or not value:
            raise ValueError(f"hook input: {key!r} must be a non-empty string")
        checked_path(value, f"hook input: {key!r}")  # the one check of a path from outside (usable_path.py)
        fields[key] = value
    if not os.path.isabs(fields["transcript_path"]) or not os.path.isabs(fields["cwd"]):
        raise ValueError("hook input: transcript_path and cwd must be absolute paths")
    request = data.get("llm_request")
    listed = request.get("messages") if isinstance(request, dict) else None
    if not isinstance(listed, list) or len(listed) > MAX_MESSAGES:
        raise ValueError("hook input: llm_request.messages must be a list")
    messages: list[dict[str, str]] = []
    for message in listed:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ValueError("hook input: a message without a role")
        content = message.get("content")
        if not isinstance(content, str):
            raise ValueError("hook input: a message whose content is not text")
        messages.append({"role": message["role"], "content": content})
    return fields, messages


def build_context(window: GeminiWindow, cwd: str, *, budget: int = GEMINI_BUDGET) -> tuple[str | None, dict[str, Any]]:
    """Our context after the compression (None: nothing to add), and figures for the log."""
    messages = window.messages
    counter = CharCounter()
    realpath = instant_realpath()
    roots = allowed_roots(cwd, file_uses(messages, cwd), realpath)
    read = gated_reader(roots)
    state = ReadFileState(cwd=cwd, counter=counter, clock=ReplayClock(), realpath=realpath, stat=instant_stat())
    state.replay(messages, hashes=False)  # the hooks send no change notices: no hash is ever compared
    work = WorkingSet(cwd=cwd)
    work.observe(messages)
    ledger = build_ledger(work, read_text=read, cwd=cwd)
    result = rehydrate(
        read_state=state,
        kept_messages=already_in_context([window.summary, *window.kept_texts]),
        settings=hook_rehydration(budget),
        counter=counter,
        workspace_roots=list(roots.paths),
        plan=None,
        read_text=read,
        history=messages,
        ledger=ledger.text,
    )
    parts = [a.text for a in result.attachments if a.kind in ("ledger", "file", "file-deleted")]
    trail = [f"- {display_path(e.path, cwd)}: {e.action}" for e in artifact_trail(messages, cwd)[:MAX_TRAIL_FILES]]
    context = fit(parts, trail, GEMINI_CONTEXT_LIMIT - len(TAG) * 2 - 8, header=HEADER)
    figures = {
        "ledgerLines": len(ledger.lines),
        "files": sum(1 for a in result.attachments if a.kind == "file"),
        "chars": len(context or ""),
        "trail": len(trail),
        "roots": list(roots.paths),
    }
    return context, figures


def answer(
    raw: bytes, *, budget: int = GEMINI_BUDGET, keep: list[object] | None = None
) -> tuple[str | None, dict[str, Any]]:
    """The hook's answer on stdout (None: leave the request as it is), and figures for the log."""
    fields, messages = parse_input(raw)
    session = {"session": fields["session_id"]}
    index = summary_index(messages)
    if index is None:
        raise NotForUs("no compression in the request")
    if not os.path.lexists(fields["transcript_path"]):
        raise FileNotFoundError(f"no Gemini CLI session file at {fields['transcript_path']}")
    window = read_window(fields["transcript_path"], fields["cwd"])
    if keep is not None:
        keep.append(window)
    if not window.compressions:
        return None, {**session, "reason": "the session file shows no compression"}
    if not window.messages:
        return None, {
            **session,
            "reason": "no file was used before the compression",
            "compressions": window.compressions,
        }
    context, figures = build_context(window, fields["cwd"], budget=budget)
    figures.update(session)
    if context is None:
        return None, figures
    answered = [dict(m) for m in messages[: index + 1]]
    answered[index]["content"] += f"\n\n<{TAG}>\n{context}\n</{TAG}>"
    figures["summaryAt"] = index
    output = {"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "llm_request": {"messages": answered}}}
    return json.dumps(output, ensure_ascii=False), figures
