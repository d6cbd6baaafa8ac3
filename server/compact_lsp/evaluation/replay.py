"""Replay a real session through the engine and measure rehydration rankers and microcompaction.

One pass over the messages drives several ``ContextSession`` objects at once: a plain one (no microcompaction)
whose read-file state the rankers see at each compaction point, and one per microcompaction configuration.
Compaction points are counterfactual: at each one every ranker says what it would attach (files re-read from
the materialised workspace), and the replay goes on with the full history, so later points see the real
session, not one shaped by an earlier compaction.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from compact_lsp.engine.claude_code import ImportedSession
from compact_lsp.engine.context import ContextSession
from compact_lsp.engine.messages import Message, blocks_of, tool_results, tool_uses
from compact_lsp.engine.microcompact import tool_result_tokens
from compact_lsp.engine.read_state import PATH_KEYS
from compact_lsp.engine.rehydration import Ranker, boosted_ranker, recency_ranker, rehydration_candidates
from compact_lsp.engine.settings import (
    EngineSettings,
    MemorySettings,
    MicrocompactSettings,
    RehydrationSettings,
)
from compact_lsp.engine.tokens import TokenCounter

from .metrics import Attached, MicroScore, PointScore, ReRead, score_point
from .workspace import ReplayWorkspace

log = logging.getLogger(__name__)

NEED_TOOLS = ("Read", "Edit", "MultiEdit")
"""Tools whose use of a file after compaction means the agent needed its text."""

CLAUDE_CODE_BUDGET = RehydrationSettings(max_files=5, token_budget=50_000, max_tokens_per_file=5_000)
TIGHT_BUDGET = RehydrationSettings(max_files=2, token_budget=10_000, max_tokens_per_file=5_000)


@dataclass(frozen=True)
class RankerSpec:
    """One rehydration policy under test."""

    name: str
    ranker: Ranker
    slices: bool = True
    """Give rehydration the summarised history, so a big file comes back as the lines read or edited
    (False: it comes back as its head, as a plain truncation would)."""
    settings: RehydrationSettings = CLAUDE_CODE_BUDGET


@dataclass(frozen=True)
class MicroSpec:
    """One microcompaction configuration; ``size_scale`` sets the size threshold to that share of the
    session's tool-result tokens (sessions in logs are small beside the 40k default)."""

    name: str
    settings: MicrocompactSettings = field(default_factory=MicrocompactSettings)
    size_scale: float | None = None
    min_threshold: int = 2_000


def default_rankers() -> tuple[RankerSpec, ...]:
    return (
        RankerSpec("recency (Claude Code / Qwen)", recency_ranker, slices=False),
        RankerSpec("recency + slices", recency_ranker),
        RankerSpec("boosted: edits", boosted_ranker(edit_boost=0.5, focus_boost=0.0)),
        RankerSpec("boosted: frequency", boosted_ranker(edit_boost=0.0, focus_boost=0.0, frequency=0.5)),
        RankerSpec(
            "boosted: edits + frequency", boosted_ranker(edit_boost=0.5, focus_boost=0.0, frequency=0.5)
        ),
        RankerSpec("recency, 2 files", recency_ranker, slices=False, settings=TIGHT_BUDGET),
        RankerSpec(
            "boosted: edits + frequency, 2 files",
            boosted_ranker(edit_boost=0.5, focus_boost=0.0, frequency=0.5),
            settings=TIGHT_BUDGET,
        ),
    )


def default_micro() -> tuple[MicroSpec, ...]:
    return (
        MicroSpec("defaults (size 40k, idle 60 min)"),
        MicroSpec("size at 1/4 of the session's results", size_scale=0.25),
        MicroSpec("size at 1/8 of the session's results", size_scale=0.125),
    )


@dataclass(frozen=True)
class EvalConfig:
    every_turns: int = 5
    """A compaction point every this many assistant turns."""
    token_fractions: tuple[float, ...] = (0.25, 0.5, 0.75)
    """... and where the conversation first reaches these shares of its final size."""
    lookahead_turns: int = 10
    rankers: tuple[RankerSpec, ...] = field(default_factory=default_rankers)
    micro: tuple[MicroSpec, ...] = field(default_factory=default_micro)


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
    files_materialised: int = 0
    reads_without_content: int = 0
    """Successful Reads whose log carries no file content: those files are missing from the workspace."""

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
            "rankers": {k: v.to_json() for k, v in self.rankers.items()},
            "rankersToEnd": {k: v.to_json() for k, v in self.rankers_to_end.items()},
            "micro": {k: v.to_json() for k, v in self.micro.items()},
        }


@dataclass(frozen=True)
class _FileUse:
    index: int
    turn: int
    tool: str
    path: str
    offset: int | None
    limit: int | None


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


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _turns(messages: Sequence[Message]) -> list[int]:
    """For each message, the number of assistant messages before it (an assistant message's own turn)."""
    turns, n = [], 0
    for message in messages:
        turns.append(n)
        if message["role"] == "assistant":
            n += 1
    return turns


def file_uses(messages: Sequence[Message], root: str) -> list[_FileUse]:
    """Successful Read/Edit/MultiEdit calls, in order, with normalised absolute paths."""
    failed = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m) if b.get("is_error")}
    answered = {str(b.get("tool_use_id")) for m in messages for b in tool_results(m)}
    turns = _turns(messages)
    uses: list[_FileUse] = []
    for i, message in enumerate(messages):
        for use in tool_uses(message):
            name, tool_input = use.get("name"), use.get("input")
            if name not in NEED_TOOLS or not isinstance(tool_input, dict):
                continue
            if use.get("id") in failed or use.get("id") not in answered:
                continue
            path = next((v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str) and v), None)
            if path is None:
                continue
            uses.append(
                _FileUse(
                    i, turns[i], str(name), os.path.normpath(os.path.join(root, path)),
                    _int(tool_input.get("offset")), _int(tool_input.get("limit")),
                )
            )  # fmt: skip
    return uses


def compaction_points(
    messages: Sequence[Message], counter: TokenCounter, every_turns: int, fractions: Sequence[float]
) -> list[int]:
    """Indices of assistant messages before which the conversation is compacted (counterfactually)."""
    sizes = [counter.count_message(m) for m in messages]
    total = sum(sizes)
    points: set[int] = set()
    running = 0
    pending = sorted(f for f in fractions if 0 < f < 1)
    turn = 0
    for i, message in enumerate(messages):
        if message["role"] == "assistant":
            if turn > 0 and every_turns > 0 and turn % every_turns == 0:
                points.add(i)
            while pending and running >= pending[0] * total:
                pending.pop(0)
                if turn > 0:
                    points.add(i)
            turn += 1
        running += sizes[i]
    return sorted(points)


def lookahead(uses: Sequence[_FileUse], point: int, turn: int, horizon: int, known: set[str]) -> list[ReRead]:
    """First use of each previously known file in the ``horizon`` assistant turns from ``point`` on."""
    seen: set[str] = set()
    found: list[ReRead] = []
    for use in uses:
        if use.index < point or use.turn >= turn + horizon:
            continue
        if use.path in seen or use.path not in known:
            continue
        seen.add(use.path)
        found.append(ReRead(use.path, use.tool, use.offset, use.limit, use.turn - turn))
    return found


def _engine_settings(base: str, micro: MicrocompactSettings) -> EngineSettings:
    # Managed memory roots inside the replay directory: the evaluating user's own memory stays out of it.
    memory = MemorySettings(project_root=os.path.join(base, "memory", "project"),
                            user_root=os.path.join(base, "memory", "user"))  # fmt: skip
    return EngineSettings(memory=memory, microcompact=micro)


OFF = MicrocompactSettings(idle_minutes=-1, size_threshold_tokens=-1)


def _micro_settings(spec: MicroSpec, result_tokens: int) -> MicrocompactSettings:
    if spec.size_scale is None:
        return spec.settings
    threshold = max(spec.min_threshold, int(result_tokens * spec.size_scale))
    s = spec.settings
    return MicrocompactSettings(
        keep_recent=s.keep_recent,
        idle_minutes=s.idle_minutes,
        size_threshold_tokens=threshold,
        compactable_tools=s.compactable_tools,
    )


def replay_session(
    imported: ImportedSession, config: EvalConfig, counter: TokenCounter, *, cwd: str | None = None
) -> SessionResult:
    """Replay one imported session (not its sub-agents) and score it."""
    with tempfile.TemporaryDirectory(prefix="compact-lsp-eval-") as tmp:
        return _replay(imported, config, counter, os.path.realpath(tmp), cwd or imported.cwd)


def _replay(
    imported: ImportedSession, config: EvalConfig, counter: TokenCounter, base: str, cwd: str | None
) -> SessionResult:
    ws = ReplayWorkspace(base, cwd)
    root = str(ws.root)
    messages = ws.map_messages(imported.session.messages)
    turns = _turns(messages)
    uses = file_uses(messages, root)
    points = set(compaction_points(messages, counter, config.every_turns, config.token_fractions))
    requests = {str(u.get("id")): u for m in messages for u in tool_uses(m)}
    result_tokens = tool_result_tokens(messages, counter)
    now = [0.0]

    def clock() -> float:
        return now[0]

    def new_session(micro: MicrocompactSettings, journal: _Collect | None = None) -> ContextSession:
        return ContextSession(imported.session.id, settings=_engine_settings(base, micro), counter=counter,
                              clock=clock, workspace_root=root, journal=journal)  # fmt: skip

    plain = new_session(OFF)
    journals = {spec.name: _Collect() for spec in config.micro}
    micro_sessions = {
        spec.name: new_session(_micro_settings(spec, result_tokens), journals[spec.name])
        for spec in config.micro
    }
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
    for i, message in enumerate(messages):
        stamp = _epoch(imported.timestamps[i]) if i < len(imported.timestamps) else None
        now[0] = stamp if stamp is not None else now[0] + 1.0
        if message["role"] == "assistant":
            if i in points:
                _score_point(plain, config, counter, root, uses, i, turns[i], result)
            for spec in config.micro:
                result.micro[spec.name].input_tokens_plain += plain.usage().total
                result.micro[spec.name].input_tokens_micro += micro_sessions[spec.name].usage().total
        else:
            _materialise(ws, message, requests, imported.tool_results_side, result)
        plain.append([message])
        for spec in config.micro:
            journal = journals[spec.name]
            before = len(journal.rewrites)
            micro_sessions[spec.name].append([message])
            for record in journal.rewrites[before:]:
                _score_rewrite(
                    result.micro[spec.name], record, uses, i, turns[i], config.lookahead_turns, root
                )
    result.files_materialised = sum(1 for p in ws.files if os.path.isfile(p))
    return result


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
        touched = ws.apply_result(name, request["input"], side.get(use_id))
        if touched is None and name == "Read":
            result.reads_without_content += 1


def _score_point(
    plain: ContextSession,
    config: EvalConfig,
    counter: TokenCounter,
    root: str,
    uses: Sequence[_FileUse],
    index: int,
    turn: int,
    result: SessionResult,
) -> None:
    known = {
        r.realpath
        for r in plain.read_state.ranked()
        if r.kind != "editor" and r.realpath.startswith(root + os.sep)
    }
    rereads = lookahead(uses, index, turn, config.lookahead_turns, known)
    rereads_to_end = lookahead(uses, index, turn, len(uses) + result.assistant_turns + 1, known)
    for spec in config.rankers:
        candidates = rehydration_candidates(
            plain.read_state,
            kept_messages=[],
            settings=spec.settings,
            counter=counter,
            workspace_roots=[root],
            ranker=spec.ranker,
            history=plain.messages if spec.slices else (),
        )
        attached = [
            Attached(os.path.normpath(os.path.join(root, c.path)), c.tokens, c.partial, c.lines)
            for c in candidates
            if c.included and not c.deleted
        ]
        result.rankers[spec.name] = result.rankers[spec.name] + score_point(attached, rereads)
        result.rankers_to_end[spec.name] = result.rankers_to_end[spec.name] + score_point(
            attached, rereads_to_end
        )


def _score_rewrite(
    score: MicroScore,
    record: dict[str, Any],
    uses: Sequence[_FileUse],
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
