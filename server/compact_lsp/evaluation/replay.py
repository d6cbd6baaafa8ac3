"""Replay a real session through the engine and measure rehydration rankers and microcompaction.

One pass over the messages drives several ``ContextSession`` objects at once: a plain one (no microcompaction)
whose read-file state the rankers see at each compaction point, and one per microcompaction configuration.
Compaction points are counterfactual: at each one every ranker says what it would attach (files re-read from
the materialised workspace), and the replay goes on with the full history, so later points see the real
session, not one shaped by an earlier compaction. What is compared is in evaluation/config.py; the points and the
files the agent needed after them in engine/files/file_use_timeline.py.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from compact_lsp.engine.claude_code.transcript_log import ImportedSession
from compact_lsp.engine.compaction.ledger import build_ledger
from compact_lsp.engine.compaction.microcompact import tool_result_tokens
from compact_lsp.engine.compaction.rehydration import Candidate, rehydration_candidates
from compact_lsp.engine.conversation.messages import Message, blocks_of, result_text, tool_uses
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.change_notices import attached_body
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.file_use_timeline import FileUse, file_uses, turns_of
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.prompts import FILE_OUTLINE_HEADER
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings, MemorySettings, MicrocompactSettings
from compact_lsp.evaluation.agent_rules import claude_code_cut, disk_text, qwen_code_cut, with_hook
from compact_lsp.evaluation.config import OFF, EvalConfig, MicroSpec, micro_settings, qwen_threshold
from compact_lsp.evaluation.cost import CacheMeter
from compact_lsp.evaluation.focus import focus_signals
from compact_lsp.evaluation.ledger_recall import LedgerScore, UnchangedRereads, ledger_at, whole_rereads
from compact_lsp.evaluation.metrics import Attached, MicroScore, PointScore, score_point
from compact_lsp.evaluation.timeline import compaction_points, lookahead
from compact_lsp.evaluation.workspace import ReplayWorkspace, let_in_what_the_user_would

log = logging.getLogger(__name__)


@dataclass
class SessionResult:
    path: str
    session_id: str
    title: str
    messages: int
    assistant_turns: int
    points: list[int] = field(default_factory=list)
    rankers: dict[str, PointScore] = field(default_factory=dict)
    rankers_to_end: dict[str, PointScore] = field(default_factory=dict)
    """The same scores with the look-ahead running to the end of the session."""
    micro: dict[str, MicroScore] = field(default_factory=dict)
    ledger: LedgerScore = field(default_factory=LedgerScore)
    rereads: UnchangedRereads = field(default_factory=UnchangedRereads)
    """What the ledger, the offline summary alone and Claude Code's rule state at each point (ledger_recall.py)."""
    files_materialised: int = 0
    reads_without_content: int = 0
    """Successful Reads whose log carries no file content: those files are missing from the workspace."""
    focus_signals: int = 0
    """``<ide_opened_file>`` and selection notices: the editor's focus, fed to the read-file state."""
    inline: bool = False
    """A sub-agent whose records were inline in its session's log (Claude Code 1.0.x), replayed on its own."""
    orphan: str | None = None
    """For a sub-agent log replayed on its own: why (its parent session is not in the folder)."""
    context: str | None = None
    """For a session Claude Code compacted: which of the contexts its compactions delimit this is ("2 of 3"),
    each replayed as the server held it (``transcript_log.import_contexts``)."""
    default_attached: dict[int, list[tuple[str, str | None]]] = field(default_factory=dict)
    """At each point (the index of the assistant message it comes before): the files the product's default
    policy attached, (path as logged, line ranges of a partial one), as ``compact-lsp compact`` shows them."""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "sessionId": self.session_id,
            "title": self.title,
            "messages": self.messages,
            "assistantTurns": self.assistant_turns,
            "points": self.points,
            "filesMaterialised": self.files_materialised,
            "readsWithoutContent": self.reads_without_content,
            "focusSignals": self.focus_signals,
            "orphan": self.orphan,
            "inline": self.inline,
            "context": self.context,
            "rankers": {k: v.to_json() for k, v in self.rankers.items()},
            "rankersToEnd": {k: v.to_json() for k, v in self.rankers_to_end.items()},
            "micro": {k: v.to_json() for k, v in self.micro.items()},
            "ledger": self.ledger.to_json(),
            "unchangedRereads": self.rereads.to_json(),
        }


class _Collect:
    """A journal that keeps the microcompaction rewrites."""

    def __init__(self) -> None:
        self.rewrites: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        if record.get("type") == "rewrite":
            self.rewrites.append(record)


def _epoch(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _engine_settings(base: str, micro: MicrocompactSettings) -> EngineSettings:
    # Managed memory roots inside the replay directory: the evaluating user's own memory stays out of it.
    memory = MemorySettings(project_root=os.path.join(base, "memory", "project"),
                            user_root=os.path.join(base, "memory", "user"))  # fmt: skip
    return EngineSettings(memory=memory, microcompact=micro)


def replay_session(
    imported: ImportedSession, config: EvalConfig, counter: TokenCounter, *, cwd: str | None = None
) -> SessionResult:
    """Replay one imported session (not its sub-agents) and score it."""
    with tempfile.TemporaryDirectory(prefix="compact-lsp-eval-") as tmp:
        return _replay(imported, config, counter, real_path(tmp), cwd or imported.cwd)


def _replay(
    imported: ImportedSession, config: EvalConfig, counter: TokenCounter, base: str, cwd: str | None
) -> SessionResult:
    ws = ReplayWorkspace(base, cwd)
    root = str(ws.root)
    messages = ws.map_messages(imported.session.messages)
    turns = turns_of(messages)
    uses = file_uses(messages, root, imported.tool_results_side)
    points = set(compaction_points(messages, counter, config.every_turns, config.token_fractions))
    requests = {str(u.get("id")): u for m in messages for u in tool_uses(m)}
    result_tokens = tool_result_tokens(messages, counter)
    now = [0.0]

    def clock() -> float:
        return now[0]

    def new_session(micro: MicrocompactSettings, journal: _Collect | None = None) -> ContextSession:
        # an imported transcript, as the server holds one: its outside files wait for the user's yes
        return ContextSession(imported.session.id, settings=_engine_settings(base, micro), counter=counter,
                              clock=clock, workspace_root=root, journal=journal, source="import")  # fmt: skip

    plain = new_session(OFF)
    # the editor's focus feeds only the policies that use it: `compact` (and an import) has no editor
    focused = new_session(OFF) if any(spec.editor_focus for spec in config.rankers) else None
    journals = {spec.name: _Collect() for spec in config.micro}
    micro_sessions = {
        spec.name: new_session(micro_settings(spec, result_tokens), journals[spec.name]) for spec in config.micro
    }
    meters = {spec.name: CacheMeter(counter, config.cache_ttl_seconds, ws.as_logged) for spec in config.micro}
    result = SessionResult(
        path=str(imported.path),
        session_id=imported.session.id,
        title=imported.session.title,
        messages=len(messages),
        assistant_turns=sum(1 for m in messages if m["role"] == "assistant"),
        points=sorted(points),
        rankers={spec.name: PointScore() for spec in config.rankers},
        rankers_to_end={spec.name: PointScore() for spec in config.rankers},
        micro={spec.name: MicroScore(sessions=1) for spec in config.micro},
    )
    version = [0]
    for i, message in enumerate(messages):
        stamp = _epoch(imported.timestamps[i]) if i < len(imported.timestamps) else None
        now[0] = stamp if stamp is not None else now[0] + 1.0
        if message["role"] == "assistant":
            if i in points:
                let_in_what_the_user_would(plain)
                if focused is not None:
                    let_in_what_the_user_would(focused)
                _score_point(plain, focused, config, counter, ws, uses, i, turns[i], result)
                result.ledger = result.ledger + ledger_at(plain, messages[:i], [u for u in uses if u.index < i])
            for spec in config.micro:
                session = micro_sessions[spec.name]
                journal = journals[spec.name]
                before = len(journal.rewrites)
                _before_request(spec, session, counter, result_tokens)
                for record in journal.rewrites[before:]:
                    _score_rewrite(result.micro[spec.name], record, uses, i, turns[i], config.lookahead_turns, root)
                meters[spec.name].request(session.messages, now[0])
                result.micro[spec.name].input_tokens_plain += plain.usage().total
                result.micro[spec.name].input_tokens_micro += session.usage().total
        else:
            _materialise(ws, message, requests, imported.tool_results_side, result)
            whole_rereads(result.rereads, message, requests, root, turns[i], counter)
            for path in focus_signals(message, ws.map_path):
                if focused is not None:
                    _focus(focused, path, version)
                result.focus_signals += 1
        plain.append([message])
        if focused is not None:
            focused.append([message])
        for spec in config.micro:
            journal = journals[spec.name]
            before = len(journal.rewrites)
            micro_sessions[spec.name].append([message])
            for record in journal.rewrites[before:]:
                _score_rewrite(result.micro[spec.name], record, uses, i, turns[i], config.lookahead_turns, root)
    for spec in config.micro:
        score, meter = result.micro[spec.name], meters[spec.name]
        score.cache_read, score.cache_write = meter.cache_read, meter.cache_write
    result.files_materialised = sum(1 for p in ws.files if os.path.isfile(p))
    return result


def _before_request(spec: MicroSpec, session: ContextSession, counter: TokenCounter, result_tokens: int) -> None:
    """What runs before the model is called: the engine's idle trigger (the live server runs it before each
    request; the session would otherwise run it only when the answer is appended), or the Qwen-style rule."""
    if spec.style == "qwen":
        if tool_result_tokens(session.messages, counter) > qwen_threshold(spec, result_tokens):
            session.microcompact("forced")
    elif session.settings.microcompact.idle_minutes != -1:
        session.microcompact("idle")


def _focus(plain: ContextSession, path: str, version: list[int]) -> None:
    """The editor focused ``path`` (an ``<ide_opened_file>`` or selection notice): open it there, as the live
    server learns from the editor."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return
    version[0] += 1
    plain.read_state.open_document(path, text, version[0])
    plain.read_state.focus_document(path)


def _materialise(
    ws: ReplayWorkspace,
    message: Message,
    requests: dict[str, dict[str, Any]],
    side: dict[str, dict[str, Any]],
    result: SessionResult,
) -> None:
    for block in blocks_of(message):
        if block.get("type") != "tool_result" or block.get("is_error"):
            continue
        use_id = str(block.get("tool_use_id"))
        request = requests.get(use_id)
        if request is None or not isinstance(request.get("input"), dict):
            continue
        name = str(request.get("name"))
        touched = ws.apply_result(name, request["input"], side.get(use_id), result_text(block))
        if touched is None and name == "Read":
            result.reads_without_content += 1


def _score_point(
    plain: ContextSession,
    focused: ContextSession | None,
    config: EvalConfig,
    counter: TokenCounter,
    ws: ReplayWorkspace,
    uses: Sequence[FileUse],
    index: int,
    turn: int,
    result: SessionResult,
) -> None:
    """Every policy's attachments at one point, scored against every need after it: the roots are the ones the
    server would have (the workspace folder and the files the transcript admitted so far), and a need outside
    them is a miss like any other."""
    root = str(ws.root)
    known = {r.realpath for r in plain.read_state.ranked() if r.kind != "editor"}
    # the product's own policy and our hook give the ledger its share of the budget, as `compact` does
    ledger = build_ledger(plain.state.working_set, read_text=gated_reader(plain.allowed_roots), cwd=root).text
    horizons = ((result.rankers, config.lookahead_turns), (result.rankers_to_end, result.assistant_turns + 1))
    for spec in config.rankers:
        session = focused if spec.editor_focus and focused is not None else plain
        roots = [root] if spec.workspace_only else session.rehydration_roots
        candidates = (
            rehydration_candidates(
                session.read_state,
                kept_messages=[],
                settings=spec.settings,
                counter=counter,
                workspace_roots=roots,
                ranker=spec.ranker,
                read_text=gated_reader(AllowedRoots.of(root) if spec.workspace_only else session.allowed_roots),
                history=session.messages if spec.slices else (),
                excerpts=spec.excerpts,
                ledger=ledger if spec.default else "",
            )
            if spec.own_files
            else []  # an agent that re-attaches nothing itself (Codex)
        )
        attached = [_attached(c, ws, counter) for c in candidates if c.included and not c.deleted]
        if spec.size_cut:
            attached = claude_code_cut(attached, counter)
        if spec.qwen_cut:
            attached = qwen_code_cut(attached)
        if spec.claude_code_hook:
            attached = with_hook(plain, attached, counter, roots, ws, ledger, spec.hook_budget)
        if spec.default:
            result.default_attached[index] = [(ws.logged_path(a.path), a.lines) for a in attached]
            whole = {a.path: attached_body(a.text) for a in attached if not a.partial}
            result.rereads.attached(index, turn + config.lookahead_turns, whole)
        for scores, horizon in horizons:
            needs = lookahead(uses, index, turn, horizon, known, workspace=[root])
            scores[spec.name] = scores[spec.name] + score_point(attached, needs, disk_text)


def _attached(c: Candidate, ws: ReplayWorkspace, counter: TokenCounter) -> Attached:
    """A candidate rehydration included, as the metrics see it (with what its outline costs)."""
    at = c.text.find(FILE_OUTLINE_HEADER) if c.outline else -1
    outline_tokens = counter.count_text(c.text[at:]) if at >= 0 else 0
    spans = tuple((e.first, e.last) for e in c.outline)
    return Attached(c.realpath, c.tokens, c.partial, c.lines, c.text, *ws.shown(c.realpath), spans, outline_tokens)


def _score_rewrite(
    score: MicroScore,
    record: dict[str, Any],
    uses: Sequence[FileUse],
    index: int,
    turn: int,
    horizon: int,
    root: str,
) -> None:
    eviction = record.get("eviction", {})
    score.rewrites += 1
    score.tokens_saved += int(eviction.get("tokensSaved", 0))
    trigger = str(eviction.get("trigger", "?"))
    score.by_trigger[trigger] = score.by_trigger.get(trigger, 0) + 1
    for cleared in eviction.get("cleared", []):
        score.cleared_results += 1
        if cleared.get("tool") != "Read":
            continue
        score.cleared_reads += 1
        paths = {os.path.normpath(os.path.join(root, p)) for p in cleared.get("paths", [])}
        later = [u for u in uses if u.tool == "Read" and u.index > index and u.path in paths]
        if later:
            score.cleared_reads_reread += 1
            if later[0].turn < turn + horizon:
                score.cleared_reads_reread_soon += 1
