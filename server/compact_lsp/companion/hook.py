"""Claude Code's ``SessionStart`` hook after its own compaction: add what our ranking says is still needed.

Claude Code re-attaches only its five most recently read files after a compaction (whole when under about 5k
tokens, larger ones by path only). The evaluation shows that rule misses about one needed file in seven. This
hook reads the transcript up to Claude Code's last ``compact_boundary``, ranks every file the agent used with
the same rehydration the server runs after its own compactions, leaves out what Claude Code's new context holds
verbatim already (its summary and the files it re-attaches), and answers with
``{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}``:

- further files, or the slices of big files the agent read or edited, re-read from disk through the file gate,
  within a token budget (``DEFAULT_BUDGET``);
- the latest plan, when Claude Code's summary does not carry its open steps;
- a compact artifact trail: every file read, edited or written before the compaction, with its last action.

Files come only from the allowed roots: the transcript's ``cwd`` and the directories the transcript shows the
agent reading or editing in with success (Claude Code asks before it works outside its directory, so a success
means the user let it in), never the home directory or ``/`` itself.

The hook must never break Claude Code (``run_hook``): any other input, and any failure, prints nothing and exits
0; why goes to stderr and the hook's log file, never to stdout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import ImportedSession, import_claude_code
from compact_lsp.engine.compaction.hook_policy import DEFAULT_BUDGET, already_in_context, hook_rehydration
from compact_lsp.engine.compaction.rehydration import rehydrate
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.artifact_trail import artifact_trail
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses
from compact_lsp.engine.files.plan_state import PlanState, extract_plan
from compact_lsp.engine.files.read_state import ReadFileState

HOOK_EVENT = "SessionStart"
HOOK_SOURCE = "compact"
CLAUDE_CODE_FILES = 5
CLAUDE_CODE_WHOLE_TOKENS = 5_000
"""Claude Code's own rule: its five most recent reads come back, whole when under about 5k tokens."""
CLAUDE_CODE_MEMORY = ("CLAUDE.md", "CLAUDE.local.md")
"""Memory files Claude Code loads into every new context itself."""
MAX_TRAIL_FILES = 60
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


def claude_code_reattached(uses: Sequence[FileUse]) -> tuple[list[str], list[str]]:
    """What Claude Code puts back itself: its five most recent successful Reads (newest first; whole when under
    its limit), and the memory files it loads into every context (whole)."""
    recent: list[str] = []
    for use in reversed(uses):
        if use.tool == "Read" and use.path not in recent and len(recent) < CLAUDE_CODE_FILES:
            recent.append(use.path)
    memory = sorted({u.path for u in uses if os.path.basename(u.path) in CLAUDE_CODE_MEMORY})
    return recent, memory


def allowed_roots(cwd: str, uses: Sequence[FileUse]) -> AllowedRoots:
    """The transcript's cwd plus every directory where the agent read or edited with success; never the home
    directory or ``/`` as a whole (a file read there does not open the rest)."""
    never = {os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)}
    dirs = {os.path.realpath(os.path.dirname(u.path)) for u in uses if not u.creates}
    return AllowedRoots.of(cwd, *sorted(d for d in dirs if d not in never))


def _reattached_texts(uses: Sequence[FileUse], roots: AllowedRoots, counter: TokenCounter) -> list[str]:
    """The text of what Claude Code puts back (read now, as it will): already in its new context verbatim."""
    read = gated_reader(roots)
    recent, memory = claude_code_reattached(uses)
    texts: list[str] = []
    for path in [*recent, *memory]:
        try:
            text = read(path).decode("utf-8", errors="replace")
        except OSError:
            continue
        if path in memory or counter.count_text(text) <= CLAUDE_CODE_WHOLE_TOKENS:
            texts.append(text)
    return texts


def _plan_lost(plan: PlanState | None, summary: str) -> bool:
    """True when the plan has open steps that Claude Code's summary does not carry word for word."""
    if plan is None or not plan.text.strip():
        return False
    folded = " ".join(summary.lower().split())
    steps = [line.strip(" -*[]xX\t").lower() for line in plan.text.splitlines() if line.strip()]
    return any(step and " ".join(step.split()) not in folded for step in steps)


def _display(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def build_context(
    imported: ImportedSession, cwd: str, counter: TokenCounter, *, budget: int = DEFAULT_BUDGET
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for a transcript imported up to its last compaction (None: nothing to add), and
    figures for the log."""
    messages = imported.session.messages
    uses = file_uses(messages, cwd, imported.tool_results_side)
    roots = allowed_roots(cwd, uses)
    state = ReadFileState(cwd=cwd, counter=counter, clock=_Ticks())
    state.observe(messages)
    # Already in Claude Code's new context verbatim: its summary and the files it re-attaches.
    summary = imported.compact_summary or ""
    kept = already_in_context([summary, *_reattached_texts(uses, roots, counter)])
    plan = extract_plan(messages)
    result = rehydrate(
        read_state=state,
        kept_messages=kept,
        settings=hook_rehydration(budget),
        counter=counter,
        workspace_roots=list(roots.paths),
        plan=plan if _plan_lost(plan, summary) else None,
        read_text=gated_reader(roots),
        history=messages,
    )
    parts = [a.text for a in result.attachments if a.kind in ("plan", "file", "file-deleted")]
    trail = artifact_trail(messages, cwd)[:MAX_TRAIL_FILES]
    if trail:
        parts.append(
            '<artifact-trail note="files touched before the compaction, most recent first, with the last action">\n'
            + "\n".join(f"- {_display(entry.path, cwd)}: {entry.action}" for entry in trail)
            + "\n</artifact-trail>"
        )
    figures = {
        "files": sum(1 for a in result.attachments if a.kind == "file"),
        "plan": any(a.kind == "plan" for a in result.attachments),
        "fileTokens": result.file_tokens,
        "trail": len(trail),
        "roots": list(roots.paths),
    }
    if not parts:
        return None, figures
    return HEADER + "\n\n" + "\n\n".join(parts), figures


class _Ticks:
    """A clock for the replayed read-file state: one tick per call, so later reads rank as more recent."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def hook_output(context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": HOOK_EVENT, "additionalContext": context}})


def context_for(
    inp: HookInput, counter: TokenCounter, *, budget: int = DEFAULT_BUDGET
) -> tuple[str | None, dict[str, Any]]:
    """The additional context for one hook call: the transcript up to Claude Code's last compaction."""
    imported = import_claude_code(inp.transcript_path, with_subagents=False, before_last_compaction=True)
    return build_context(imported, inp.cwd, counter, budget=budget)
