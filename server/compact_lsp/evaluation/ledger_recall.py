"""Ledger recall at a compaction point: of what the agent did before it, what the post-compaction context states.

Truth, from the log before the point: the files edited (a successful Edit, MultiEdit, NotebookEdit or Write), and
the last test command run (``command_kind`` says which commands are tests; a call the user refused, or one still
running in the background, did not run) with its outcome: failed when its result is an error, else passed.

Each context is judged the same way. A file is **named** when its path (as logged relative to the workspace, or
absolute) appears in the text. The last test's status is **stated correctly** when a line shows the command and
the right outcome: the ledger's ``Last test:`` line with the command and ``exit 0`` for a pass, any other status
for a failure; the last entry for that command in the offline summary's list of commands run, which says
``-> error`` after a failure and nothing after a success (so a pass is never stated); Claude Code's rule (its
five most recent files, whole) states no command at all. A file the ledger lists counts on its own line or on its
packed "also changed by you" line. The ledger's cost is its characters.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from compact_lsp.agents.claude_code.reattached import predict_reattached
from compact_lsp.engine.compaction.ledger import PACKED_PREFIX, Ledger, build_ledger, packed_paths
from compact_lsp.engine.conversation.messages import Message, blocks_of, result_text
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.files.command_runs import SHELL_TOOLS, command_kind, command_of, shown_command
from compact_lsp.engine.files.file_gate import gated_reader
from compact_lsp.engine.files.file_tool_calls import input_path
from compact_lsp.engine.files.file_use_timeline import FileUse
from compact_lsp.engine.files.usable_path import real_path_or_none
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.summarize.offline import OfflineSummarizer

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "NotebookEdit", "Write", "edit_file", "write_file"})
_DID_NOT_RUN = re.compile(
    r"doesn't want to (proceed|take this action)|requires approval|was blocked|\ACommand running in background",
    re.IGNORECASE,
)


@dataclass
class LedgerScore:
    """Summed over points (``+`` adds two)."""

    points: int = 0
    edited: int = 0
    """Files edited before each point, summed."""
    ledger_named: int = 0
    summary_named: int = 0
    rule_named: int = 0
    test_points: int = 0
    """Points after at least one test command ran."""
    ledger_status: int = 0
    summary_status: int = 0
    rule_status: int = 0
    ledger_chars: int = 0
    ledger_chars_max: int = 0
    over_budget: int = 0
    """Points where the ledger cut lines to stay within its characters."""

    def __add__(self, other: LedgerScore) -> LedgerScore:
        summed = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        summed["ledger_chars_max"] = max(self.ledger_chars_max, other.ledger_chars_max)
        return LedgerScore(**summed)

    def to_json(self) -> dict[str, Any]:
        def rate(part: int, whole: int) -> float | None:
            return part / whole if whole else None

        return {
            "points": self.points,
            "edited": self.edited,
            "testPoints": self.test_points,
            "editedRecall": {"ledger": rate(self.ledger_named, self.edited),
                             "offlineSummary": rate(self.summary_named, self.edited),
                             "claudeCodeRule": rate(self.rule_named, self.edited)},
            "lastTestStatus": {"ledger": rate(self.ledger_status, self.test_points),
                               "offlineSummary": rate(self.summary_status, self.test_points),
                               "claudeCodeRule": rate(self.rule_status, self.test_points)},
            "ledgerCharsMean": self.ledger_chars / self.points if self.points else None,
            "ledgerCharsMax": self.ledger_chars_max,
            "pointsCut": self.over_budget,
        }  # fmt: skip


@dataclass(frozen=True)
class LastTest:
    command: str
    passed: bool


def edited_before(messages: Sequence[Message], root: str) -> list[str]:
    """Absolute paths of the files a successful edit or write changed in ``messages``, first edit first."""
    calls: dict[str, str] = {}
    edited: dict[str, None] = {}
    for message in messages:
        for block in blocks_of(message):
            if block.get("type") == "tool_use" and block.get("name") in EDIT_TOOLS:
                path = input_path(block.get("input"))
                if path is not None:
                    calls[str(block.get("id"))] = os.path.normpath(os.path.join(root, path))
            elif block.get("type") == "tool_result" and not block.get("is_error"):
                path = calls.get(str(block.get("tool_use_id")), "")
                if path:
                    edited[path] = None
    return list(edited)


def last_test(messages: Sequence[Message]) -> LastTest | None:
    """The last test command that ran in ``messages``, and whether it passed (its result is no error)."""
    calls: dict[str, str] = {}
    found: LastTest | None = None
    for message in messages:
        for block in blocks_of(message):
            if block.get("type") == "tool_use" and block.get("name") in SHELL_TOOLS:
                tool_input = block.get("input")
                command = command_of(tool_input) if isinstance(tool_input, dict) else None
                if command is not None and command_kind(command) == "test":
                    calls[str(block.get("id"))] = command
            elif (
                block.get("type") == "tool_result"
                and str(block.get("tool_use_id")) in calls
                and not _DID_NOT_RUN.search(result_text(block)[:400])
            ):
                found = LastTest(calls[str(block.get("tool_use_id"))], not block.get("is_error"))
    return found


def _named(path: str, root: str, text: str) -> bool:
    rel = os.path.relpath(path, root)
    return (not rel.startswith("..") and rel in text) or path in text


def _listed(path: str, root: str, ledger: Ledger) -> bool:
    rel = os.path.relpath(path, root)
    packed = (packed_paths(line) for line in ledger.lines if line.startswith(PACKED_PREFIX))
    return any(line.startswith((f"- {rel}:", f"- {path}:")) for line in ledger.lines) or any(
        rel in names or path in names for names in packed
    )


def _ledger_states(ledger: Ledger, test: LastTest) -> bool:
    line = next((line for line in ledger.lines if line.startswith("Last test: ")), None)
    if line is None or f"`{shown_command(test.command)}`" not in line:
        return False
    passed = " — exit 0" in line
    return passed == test.passed


def _summary_states(summary: str, test: LastTest) -> bool:
    shown = f"- `{' '.join(test.command.split())[:60]}"
    lines = [line for line in summary.splitlines() if " ".join(line.split()).startswith(shown)]
    if not lines:
        return False
    return "-> error" in lines[-1] and not test.passed


def score_ledger(
    messages: Sequence[Message], uses: Sequence[FileUse], root: str, ledger: Ledger, summary: str
) -> LedgerScore:
    """One point: ``messages`` are those before it, ``uses`` the file uses before it (for Claude Code's rule)."""
    edited = edited_before(messages, root)
    rule = set(predict_reattached(uses))
    score = LedgerScore(points=1, edited=len(edited), ledger_chars=len(ledger.text),
                        ledger_chars_max=len(ledger.text), over_budget=1 if ledger.left_out else 0)  # fmt: skip
    for path in edited:
        score.ledger_named += _listed(path, root, ledger)
        score.summary_named += _named(path, root, summary)
        score.rule_named += path in rule
    test = last_test(messages)
    if test is not None:
        score.test_points = 1
        score.ledger_status = _ledger_states(ledger, test)
        score.summary_status = _summary_states(summary, test)
    return score


@dataclass
class UnchangedRereads:
    """Whole re-reads, within the look-ahead after a point, of a file the default policy attached whole there, when
    the file is unchanged since: the built-in agent answers those in one line (agent/reading.py), not the text."""

    rereads: int = 0
    """Whole Reads of a file attached whole at an earlier point (the first after each point)."""
    unchanged: int = 0
    unchanged_tokens: int = 0
    """What those unchanged re-reads showed again, in tokens: what the one-line answer saves."""
    _open: list[tuple[int, int, dict[str, str]]] = field(default_factory=list)
    """(last turn of the look-ahead, point index, {real path: attached text}) of the points still looking."""

    def attached(self, index: int, until_turn: int, files: dict[str, str]) -> None:
        if files:
            self._open.append((until_turn, index, dict(files)))

    def read(self, turn: int, path: str, text_now: str, tokens: int) -> None:
        """A whole Read of ``path`` at ``turn``, the file holding ``text_now``."""
        self._open = [entry for entry in self._open if turn < entry[0]]
        for _until, _index, files in self._open:
            attached = files.pop(path, None)
            if attached is None:
                continue
            self.rereads += 1
            if attached.rstrip("\n") == text_now.rstrip("\n"):
                self.unchanged += 1
                self.unchanged_tokens += tokens

    def __add__(self, other: UnchangedRereads) -> UnchangedRereads:
        return UnchangedRereads(self.rereads + other.rereads, self.unchanged + other.unchanged,
                                self.unchanged_tokens + other.unchanged_tokens)  # fmt: skip

    def to_json(self) -> dict[str, int]:
        return {"rereads": self.rereads, "unchanged": self.unchanged, "unchangedTokens": self.unchanged_tokens}


def whole_rereads(
    rereads: UnchangedRereads,
    message: Message,
    requests: dict[str, dict[str, Any]],
    root: str,
    turn: int,
    counter: TokenCounter,
) -> None:
    """Each whole Read answered in ``message``, with the file as the replay just wrote it."""
    for block in blocks_of(message):
        request = requests.get(str(block.get("tool_use_id"))) if block.get("type") == "tool_result" else None
        tool_input = request.get("input") if request is not None and request.get("name") == "Read" else None
        if not isinstance(tool_input, dict) or block.get("is_error") or {"offset", "limit"} & tool_input.keys():
            continue
        path = real_path_or_none(os.path.join(root, str(tool_input.get("file_path", ""))))
        if path is None:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        rereads.read(turn, path, text, counter.count_text(result_text(block)))


def ledger_at(plain: ContextSession, before: list[Message], uses: Sequence[FileUse]) -> LedgerScore:
    """The ledger the compaction would attach here (the disk as the replay has it now), scored beside the offline
    summary of the same messages and Claude Code's rule."""
    root = plain.workspace_root or ""
    ledger = build_ledger(plain.state.working_set, read_text=gated_reader(plain.allowed_roots), cwd=root)
    return score_ledger(before, uses, root, ledger, OfflineSummarizer().summarize_messages(before))


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def ledger_lines(t: LedgerScore, rereads: UnchangedRereads) -> list[str]:
    """What the post-compaction context states of the work before each point (evaluation/ledger_recall.py)."""
    recall, status = t.to_json()["editedRecall"], t.to_json()["lastTestStatus"]
    chars = t.to_json()["ledgerCharsMean"]
    return [
        "",
        "## The ledger: what the agent did, stated after the compaction",
        "",
        f"At {t.points} points: {t.edited} files edited before them (summed over points), a test command run before "
        f"{t.test_points} of them. The ledger costs {chars or 0:,.0f} characters a point on average, "
        f"{t.ledger_chars_max:,} at most; it left something out at {t.over_budget} points.",
        "",
        "| context after the compaction | edited files named | last test's status stated correctly |",
        "|---|---:|---:|",
        f"| ledger | {_percent(recall['ledger'])} | {_percent(status['ledger'])} |",
        f"| offline summary alone | {_percent(recall['offlineSummary'])} | {_percent(status['offlineSummary'])} |",
        f"| Claude Code's rule (5 most recent files) | {_percent(recall['claudeCodeRule'])} | "
        f"{_percent(status['claudeCodeRule'])} |",
        "",
        f"Whole re-reads, within the look-ahead, of a file the default policy attached whole: {rereads.rereads}; of "
        f"them unchanged since (the built-in agent answers those in one line): {rereads.unchanged}, "
        f"{rereads.unchanged_tokens:,} tokens not sent again.",
    ]
