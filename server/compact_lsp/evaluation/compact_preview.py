"""``compact-lsp compact SESSION.jsonl``: what full compaction (offline summariser) leaves at assistant turn N.

Turns are counted as ``inspect`` counts them: the assistant messages of the imported session. A compaction at
turn N takes everything up to the N-th assistant message and the results that answer it; a repeated ``--turn``
compacts again, on the already-compacted conversation plus what followed. The session's files are read from
``--workspace`` or the log's own cwd when that folder is on this machine; otherwise they are rebuilt from the log
(``ReplayWorkspace``, as ``eval`` does) in a temporary folder, and paths are shown as the author's.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import ImportedSession, import_claude_code
from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.messages import Message, blocks_of, result_text, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.file_tool_calls import PATH_KEYS
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import AutoCompactSettings, EngineSettings, MemorySettings
from compact_lsp.engine.summarize.offline import OfflineSummarizer
from compact_lsp.evaluation.workspace import ReplayWorkspace, let_in_what_the_user_would


@dataclass
class CompactionStep:
    """One compaction of the preview: at which turn, and what it left (or why it changed nothing)."""

    turn: int
    tokens_before: int
    tokens_after: int
    changed: bool
    messages: list[Message] = field(default_factory=list)
    rehydrated: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "turn": self.turn,
            "changed": self.changed,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "rehydrated": self.rehydrated,
            "messages": self.messages,
        }
        if self.reason is not None:
            wire["reason"] = self.reason
        return wire


def assistant_turns(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")


def cut_after_turn(messages: Sequence[Message], turn: int) -> int:
    """The number of messages up to assistant turn ``turn`` and the user message that answers it."""
    seen = 0
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            if seen == turn:
                return index
            seen += 1
    return len(messages)


def check_turns(turns: Sequence[int], available: int) -> list[int]:
    chosen = list(turns) or [available]
    for previous, turn in zip([0, *chosen], chosen, strict=False):
        if not 1 <= turn <= available:
            raise ValueError(f"--turn {turn}: the session has {available} assistant turns (1-{available})")
        if turn <= previous:
            raise ValueError(f"--turn {turn}: each --turn must be later than the one before ({previous})")
    return chosen


def preview_compactions(
    path: str, turns: Sequence[int], counter: TokenCounter, *, workspace: str | None = None
) -> list[CompactionStep]:
    """Compact the session at each of ``turns`` in order (the end when empty); one step per compaction."""
    imported = import_claude_code(path)  # as inspect imports it, so the turns are the same
    return compact_imported(imported, turns, counter, workspace=workspace)


def compact_imported(
    imported: ImportedSession, turns: Sequence[int], counter: TokenCounter, *, workspace: str | None = None
) -> list[CompactionStep]:
    """``preview_compactions`` of a session already imported."""
    chosen = check_turns(turns, assistant_turns(imported.session.messages))
    root = workspace or imported.cwd
    with tempfile.TemporaryDirectory(prefix="compact-lsp-compact-") as tmp:
        if root and os.path.isdir(root):
            return _run(imported, chosen, counter, real_path(root), tmp, None)
        return _run(imported, chosen, counter, None, real_path(tmp), ReplayWorkspace(tmp, imported.cwd))


def _run(
    imported: ImportedSession,
    turns: list[int],
    counter: TokenCounter,
    root: str | None,
    base: str,
    ws: ReplayWorkspace | None,
) -> list[CompactionStep]:
    messages = imported.session.messages if ws is None else ws.map_messages(imported.session.messages)
    if ws is None and root is not None and imported.cwd and os.path.normpath(imported.cwd) != root:
        messages = moved(messages, os.path.normpath(imported.cwd), root)
    memory = MemorySettings(project_root=os.path.join(base, "memory", "project"),
                            user_root=os.path.join(base, "memory", "user"))  # fmt: skip
    settings = EngineSettings(memory=memory, auto_compact=AutoCompactSettings(enabled=False))
    # an imported transcript, as the server holds one: its outside files wait for the user's yes
    session = ContextSession(imported.session.id, settings=settings, counter=counter, source="import",
                             workspace_root=str(ws.root) if ws is not None else root)  # fmt: skip
    as_logged: Callable[[Any], Any] = ws.as_logged if ws is not None else (lambda value: value)
    requests = {str(u.get("id")): u for m in messages for u in tool_uses(m)}
    steps: list[CompactionStep] = []
    done = 0

    def tokens(total: int, view: list[Message]) -> int:
        """``total`` as the author's paths count: the replay's temporary paths would make the figure vary."""
        if ws is None:
            return total
        mapped = sum(counter.count_message(m) for m in view)
        return total - mapped + sum(counter.count_message(as_logged(m)) for m in view)

    for turn in turns:
        cut = cut_after_turn(messages, turn)
        new = list(messages[done:cut])
        if ws is not None:
            for message in new:
                _materialise(ws, message, requests, imported.tool_results_side)
        if new:
            session.append(new)
        let_in_what_the_user_would(session)
        done = cut
        before = tokens(session.usage().total, session.view())
        try:
            outcome = asyncio.run(session.compact(OfflineSummarizer()))
        except CompactionError as exc:
            if exc.kind not in ("not_smaller", "empty"):
                raise
            steps.append(CompactionStep(turn, before, before, False, as_logged(session.view()), [], str(exc)))
            continue
        after = tokens(outcome.boundary.tokens_after, session.view())
        view, rehydrated = as_logged(session.view()), as_logged(outcome.rehydrated)
        steps.append(CompactionStep(turn, before, after, True, view, rehydrated))
    return steps


def moved(messages: Sequence[Message], cwd: str, root: str) -> list[Message]:
    """The messages with the tool calls' paths under the log's ``cwd`` moved to ``root`` (``--workspace``: the
    session's folder is elsewhere on this machine); other paths stay as they are."""

    def move(value: Any) -> Any:
        if isinstance(value, str) and (value == cwd or value.startswith(cwd.rstrip("/") + "/")):
            return root + value[len(cwd) :]
        return value

    out: list[Message] = []
    for message in messages:
        blocks = blocks_of(message)
        if not any(b.get("type") == "tool_use" for b in blocks):
            out.append(message)
            continue
        content = [
            {**b, "input": {k: move(v) if k in PATH_KEYS else v for k, v in b["input"].items()}}
            if b.get("type") == "tool_use" and isinstance(b.get("input"), dict)
            else b
            for b in blocks
        ]
        out.append({**message, "content": content})
    return out


def _materialise(
    ws: ReplayWorkspace, message: Message, requests: dict[str, Message], side: dict[str, dict[str, Any]]
) -> None:
    for block in blocks_of(message):
        if block.get("type") != "tool_result" or block.get("is_error"):
            continue
        request = requests.get(str(block.get("tool_use_id")))
        if request is not None and isinstance(request.get("input"), dict):
            ws.apply_result(str(request.get("name")), request["input"], side.get(str(block.get("tool_use_id"))),
                            result_text(block))  # fmt: skip


def format_steps(steps: Sequence[CompactionStep]) -> str:
    """The report: each compaction's figures, then the conversation the last one left."""
    lines: list[str] = []
    for step in steps:
        if not step.changed:
            lines.append(f"turn {step.turn}: nothing changed: {step.reason}")
            continue
        files = [r.get("path") or r.get("kind") for r in step.rehydrated]
        lines.append(
            f"turn {step.turn}: {step.tokens_before:,} -> {step.tokens_after:,} tokens; re-attached "
            f"{len(files)}: {', '.join(str(f) for f in files) or 'nothing'}"
        )
    last = steps[-1]
    lines += ["", f"The conversation after the compaction at turn {last.turn} ({len(last.messages)} messages):"]
    for message in last.messages:
        for block in blocks_of(message):
            text = block.get("text") if block.get("type") == "text" else None
            if text is None:
                text = f"[{block.get('type')}{' ' + str(block.get('name')) if block.get('name') else ''}]"
            lines.append(f"--- {message.get('role')}\n{text}")
    return "\n".join(lines) + "\n"
