"""Claude Code's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Claude Code re-attaches its five most recently touched files after a compaction and keeps its last assistant
message (``engine/compaction/hook_policy.py`` has the measured rule). This hook reads the transcript from its end
back to the boundary before Claude Code's last one (``compaction_view.read_tail``), ranks every file the agent
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
directory), by realpath and still regular files; a directory never becomes a root because a file in it was read.

The hook must never break Claude Code (``run_hook``): any other input, and any failure, prints nothing and exits
0; why goes to stderr and the hook's log file, never to stdout.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.claude_code.branch import conversation_of
from compact_lsp.engine.claude_code.compaction_view import (
    read_tail,
    reattached_files,
    split_at_last_compaction,
    text_of,
)
from compact_lsp.engine.claude_code.log_lines import before_last_boundary, parse_log_lines
from compact_lsp.engine.compaction.hook_policy import (
    CLAUDE_CODE_MEMORY,
    DEFAULT_BUDGET,
    HOOK_CHAR_LIMIT,
    CharCounter,
    already_in_context,
    hook_rehydration,
    predict_reattached,
)
from compact_lsp.engine.compaction.rehydration import rehydrate
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses
from compact_lsp.engine.files.plan_state import PlanState, extract_plan
from compact_lsp.engine.files.read_state import ReadFileState

HOOK_EVENT = "SessionStart"
HOOK_SOURCE = "compact"
MAX_TRAIL_FILES = 60
MAX_TRANSCRIPT_TAIL_BYTES = 256 << 20
"""The most of a transcript the hook reads back from its end (far more than a 1M-token context)."""
HEADER = (
    "compact-lsp: context that Claude Code's compaction did not re-attach. Files were re-read from disk just now "
    "(current content). Use them instead of re-reading."
)


@dataclass(frozen=True)
class HookInput:
    """The fields of Claude Code's hook input that the hook uses."""

    session_id: str
    transcript_path: str
    cwd: str
    event: str
    source: str | None


class NotForUs(Exception):
    """Input the hook has nothing to add for (another event, another source): print nothing."""


def parse_hook_input(raw: bytes) -> HookInput:
    """The hook input, or ``NotForUs``/``ValueError`` (both print nothing)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError("hook input is not a JSON object")
    event, source = data.get("hook_event_name"), data.get("source")
    if event != HOOK_EVENT or source != HOOK_SOURCE:
        raise NotForUs(f"{event!r} with source {source!r}: only {HOOK_EVENT} with source {HOOK_SOURCE!r} is ours")
    fields = {key: data.get(key) for key in ("session_id", "transcript_path", "cwd")}
    for key, value in fields.items():
        if not isinstance(value, str) or not value or "\x00" in value:
            raise ValueError(f"hook input: {key!r} must be a non-empty string")
    if not os.path.isabs(fields["transcript_path"] or "") or not os.path.isabs(fields["cwd"] or ""):
        raise ValueError("hook input: transcript_path and cwd must be absolute paths")
    return HookInput(str(fields["session_id"]), str(fields["transcript_path"]), str(fields["cwd"]), event, source)


@dataclass(frozen=True)
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


def allowed_roots(cwd: str, uses: Sequence[FileUse], realpath: Callable[[str], str] = os.path.realpath) -> AllowedRoots:
    """The transcript's cwd (never the home directory or ``/``), plus, outside it, each exact file the agent read
    or edited with success that is still a regular file and not a symlink now (its directory resolved): a file,
    never its directory, and never what a link swapped in since points at."""
    never = {realpath(os.path.expanduser("~")), realpath(os.sep)}
    real_cwd = realpath(cwd)
    base = AllowedRoots.of(real_cwd) if real_cwd not in never else AllowedRoots()
    files: list[str] = []
    seen: set[str] = set()
    for use in uses:
        if use.creates:
            continue
        real = os.path.join(realpath(os.path.dirname(use.path)), os.path.basename(use.path))
        if real in seen:
            continue
        seen.add(real)
        if base.root_of(real) is not None:
            continue
        try:
            if stat.S_ISREG(os.lstat(real).st_mode):
                files.append(real)
        except OSError:
            continue
    return base.plus(*files)


def instant_realpath() -> Callable[[str], str]:
    """``os.path.realpath`` remembered for one hook call: the disk is taken as it is at that instant (a file the
    hook re-attaches is still resolved again where it is opened, through the file gate)."""
    return functools.lru_cache(maxsize=None)(os.path.realpath)


def _plan_lost(plan: PlanState | None, summary: str) -> bool:
    """True when the plan has open steps that Claude Code's summary does not carry word for word."""
    if plan is None or not plan.text.strip():
        return False
    folded = " ".join(summary.lower().split())
    steps = [line.strip(" -*[]xX\t").lower() for line in plan.text.splitlines() if line.strip()]
    return any(step and " ".join(step.split()) not in folded for step in steps)


def display_path(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


TRAIL_HEAD = '<artifact-trail note="files touched before the compaction, most recent first, with the last action">'
TRAIL_TAIL = "</artifact-trail>"


def fit(
    parts: Sequence[str], trail: Sequence[str], limit: int = HOOK_CHAR_LIMIT, *, header: str = HEADER
) -> str | None:
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
    state = ReadFileState(cwd=cwd, counter=counter, clock=ReplayClock(), realpath=realpath)
    state.observe(messages)
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
    context = fit(parts, trail)
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


class ReplayClock:
    """A clock for the replayed read-file state: one tick per call, so later reads rank as more recent."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def hook_output(context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "additionalContext": context}})


def context_for(inp: HookInput, *, budget: int = DEFAULT_BUDGET) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call: the transcript read back from its end to the boundary before
    Claude Code's last compaction."""
    if not os.path.lexists(inp.transcript_path):
        raise FileNotFoundError(f"no Claude Code session log at {inp.transcript_path}")
    data = read_tail(inp.transcript_path, 2, max_bytes=MAX_TRANSCRIPT_TAIL_BYTES)
    records, _ = parse_log_lines(data)
    before, summary = before_last_boundary(records)
    split = split_at_last_compaction(records, [r for r in records if r.message is not None])
    messages, side = conversation_of(before)
    return build_context(
        messages,
        side,
        inp.cwd,
        summary=summary or "",
        preserved=[text_of(r) for r in split.preserved],
        reattached=reattached_files(records),
        budget=budget,
    )
