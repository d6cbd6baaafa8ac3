"""Codex CLI's rollouts as read-only sessions: the workspace's Codex sessions, kept in step as Codex writes.

Codex keeps every session in ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`` whatever the
project; a rollout belongs to the workspace when its first line (``session_meta``) names the workspace as its
``cwd``. ``FollowedCodexSession`` holds what the model holds now (since Codex's last compaction: the history it
kept, then what followed), and what a line appended costs follows the line, not the rollout:

- the lines appended since the last look are read (``AppendedLines``; a replaced or shortened rollout is read
  again from its start) and fed to the rollout reader's builder (``RolloutBuilder``), which turns Codex's items
  into messages as ``read_rollout`` does;
- a rollout read from its start is taken in pieces (``PIECE_BYTES`` of lines), as if Codex had appended them
  piece by piece: before its last ``compacted`` line (found first, by a scan for its bytes, in a rollout of more
  than one piece) a piece's messages
  only tell the title, since that compaction drops them; after it each piece is settled as below, so only a
  piece's messages are held beside the session, not the whole window's;
- complete messages before the last assistant message are appended to a ``ContextSession`` only this module
  writes to, repaired as the importer repairs a whole rollout, and counted once; the last assistant message and
  what follows (results still arriving, a response still streaming) stay open and are counted each update;
- a ``compacted`` record starts the window again from the history Codex kept: what came before is dropped.

Everything that would change the context from outside is refused by its journal (``OwnedByCodex``).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.agents.appended_lines import AppendedLines, LineMark
from compact_lsp.agents.codex.auto_compaction import codex_auto_compaction
from compact_lsp.agents.codex.chat import codex_chat_entries, codex_compactions
from compact_lsp.agents.followed_window import AgentCompaction, FollowedJournal, FollowedTranscript, OpenTail
from compact_lsp.engine.codex.file_uses import file_use_view
from compact_lsp.engine.codex.rollout import (
    MAX_LINE_BYTES,
    MAX_ROLLOUT_BYTES,
    CodexRollout,
    RolloutBuilder,
    kept_message,
    parse_line,
    title_of,
)
from compact_lsp.engine.codex.working_set import codex_working_set
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.next_compaction import AutoCompaction
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.files.file_gate import open_regular
from compact_lsp.engine.files.usable_path import is_usable, real_path
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.context_session import ContextSession, ConversationError
from compact_lsp.engine.setting_ranges import setting
from compact_lsp.store.session_lock import SessionBusy

ID_PREFIX = "codex-"
MAX_META_BYTES = 1 << 20
SCAN_LIMIT = 400
"""Rollouts looked at (newest first) when the follower starts; others join when Codex writes to them."""
PIECE_BYTES = 256 * 1024
"""How much of a rollout read from its start is taken at a time (see the module doc)."""


def _is_compacted(line: bytes) -> bool:
    record = parse_line(line) if len(line) <= MAX_LINE_BYTES else None
    return record is not None and record["type"] == "compacted"


COMPACTED = LineMark(b'"compacted"', _is_compacted)


@dataclass(frozen=True)
class CodexSettings:
    """Following the workspace's Codex CLI sessions (docs/codex.md)."""

    SECTION = "codex"
    follow: bool | None = field(
        default=None,
        metadata=setting(
            "Follow the workspace's Codex CLI sessions as read-only sessions, read from where they stopped as Codex "
            "appends (unset: when Codex's sessions folder exists).",
            more='A followed session (`source: "codex"`) is what the model sees now (since Codex\'s last compaction); '
            "`docs/codex.md`.",
            not_in_vscode="the server follows when Codex's sessions folder exists",
        ),
    )
    home: str | None = field(
        default=None,
        metadata=setting(
            "Codex's home (unset: `$CODEX_HOME`, else `~/.codex`); its sessions are in `sessions/` below it.",
            kind="path",
            not_in_vscode="Codex's own folder, found by the server",
        ),
    )


def sessions_root(home: str | None) -> Path:
    return Path(os.path.expanduser(home or os.environ.get("CODEX_HOME") or "~/.codex")) / "sessions"


def _first_line_cwd(path: Path) -> tuple[str | None, bool]:
    """The rollout's ``cwd`` and whether its first line is there whole (Codex creates the file, then writes it)."""
    try:
        with open_regular(str(path), max_bytes=MAX_ROLLOUT_BYTES) as f:  # what is followed
            first = f.readline(MAX_META_BYTES)
    except OSError:
        return None, True
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        return None, first.endswith(b"\n") or len(first) >= MAX_META_BYTES
    payload = record.get("payload") if isinstance(record, dict) and record.get("type") == "session_meta" else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return (cwd if is_usable(cwd) else None), True  # the one check of a path from outside (usable_path.py)


def ownership(path: Path, workspace_root: str) -> bool | None:
    """True: the workspace's rollout; False: another project's (or not a rollout); None: its first line is not
    written yet, so it cannot tell (a rollout Codex just created)."""
    cwd, whole = _first_line_cwd(path)
    if cwd is None:
        return False if whole else None
    return real_path(cwd) == real_path(workspace_root)


def belongs_to(path: Path, workspace_root: str) -> bool:
    return ownership(path, workspace_root) is True


def rollouts_for(root: Path, workspace_root: str, limit: int) -> list[Path]:
    """The workspace's rollouts under ``root``, newest first, at most ``limit`` (of the ``SCAN_LIMIT`` newest)."""
    try:
        found = [(p.stat().st_mtime, p) for p in root.glob("*/*/*/rollout-*.jsonl")]
    except OSError:
        return []
    newest = [p for _, p in sorted(found, reverse=True)[:SCAN_LIMIT]]
    return [p for p in newest if belongs_to(p, workspace_root)][:limit]


def session_id_for(path: Path) -> str:
    """``codex-<thread id>`` (the last five dash-separated parts of the file name are the thread's UUID)."""
    parts = path.stem.split("-")
    return ID_PREFIX + ("-".join(parts[-5:]) if len(parts) > 5 else path.stem)


class OwnedByCodex(SessionBusy):
    """A change to a followed Codex session: Codex owns its context."""

    def __init__(self, session: str) -> None:
        RuntimeError.__init__(
            self,
            f"session {session} is a Codex CLI session, followed read-only: Codex owns its context, so compact it in "
            "Codex (/compact; our hook adds what it leaves out), or import it to continue it here",
        )
        self.session = session
        self.owner = {"agent": "Codex"}


class FollowedCodexSession(FollowedTranscript):
    """A ``ContextSession`` kept in step with a Codex rollout as Codex appends to it (see the module doc)."""

    def auto_compaction(self, window: int | None) -> AutoCompaction | None:
        return codex_auto_compaction(window, self.session.workspace_root, self.path, os.environ)

    def recorded_compactions(self) -> list[AgentCompaction]:
        return codex_compactions(self.path)

    def chat_entries(self) -> list[dict[str, Any]] | None:
        return codex_chat_entries(self.path)

    def __init__(self, path: Path, make_session: Callable[[str, str], ContextSession]) -> None:
        self.transcript = AppendedLines(path, MAX_ROLLOUT_BYTES, COMPACTED, PIECE_BYTES)
        self.id = session_id_for(path)
        self._make = make_session
        self._refused = OwnedByCodex
        self.journal = FollowedJournal(self.id, OwnedByCodex)
        self.rebuilds = 0
        """How often the window was committed afresh because an append could not simply extend it."""
        self.version = 0
        """Counts the updates that changed the session (what a published status describes)."""
        self._restart()

    def _restart(self) -> None:
        """Nothing read yet (a new, replaced or shortened rollout)."""
        self.title = ""
        self.cwd: str | None = None
        self.problems = 0
        """Lines that could not be parsed, so far."""
        self._rollout = CodexRollout(str(self.transcript.path))
        self._builder = RolloutBuilder(self._rollout, developer=True)
        self.session = self._new_session("")
        self._pending: list[Message] = []
        """Complete messages not committed yet: the last assistant message and what followed it."""
        self._open = OpenTail()

    @property
    def timestamps(self) -> list[str | None]:
        return [None] * (len(self.session.messages) + len(self._open.messages))

    def _reported(self) -> dict[str, Any] | None:
        return self._rollout.usage

    def context_window(self) -> int | None:
        """The window Codex reports in its rollout (``model_context_window``), as ``inspect`` reads it."""
        return self._rollout.context_window

    plan_in_ledger = True

    def working_set(self) -> WorkingSet:
        """Its file uses as its hook reads them (``file_use_view``: apply_patch, cat, sed -n), then its commands."""
        return codex_working_set(self.messages, self.cwd or self.session.workspace_root or "")

    def update(self) -> bool:
        """Read what Codex appended and apply it; True when the session changed."""
        try:
            with self.transcript.look() as appended:
                if appended is None:
                    return False
                if appended.reset:
                    self._restart()
                piece = self.transcript.offset
                for raw in appended.lines:
                    self._add_line(raw)
                    if appended.reset and self.transcript.offset - piece >= PIECE_BYTES:
                        piece = self.transcript.offset
                        self._take_piece(appended.last_marked)
        except BaseException:
            self.transcript.forget()  # stopped mid-way: read it whole next time
            raise
        self.version += 1
        self._settle(self._builder.take())
        self.cwd = self._rollout.cwd
        return True

    def _take_piece(self, last_compacted: int | None) -> None:
        """A piece of a rollout read from its start: before its last compaction only its title counts (that
        compaction drops its messages), after it the piece is settled as an update would settle it."""
        if last_compacted is not None and self.transcript.offset <= last_compacted:
            self._title_from(self._builder.take())
        else:
            self._settle(self._builder.take())

    def _add_line(self, raw: bytes) -> None:
        record = parse_line(raw) if len(raw) <= MAX_LINE_BYTES else None
        if record is None:
            self.problems += bool(raw.strip())
            return
        self._builder.add(record)
        if record["type"] == "compacted" and self._rollout.compactions:
            # what Codex summarised away is gone from the model: keep only what it kept, and the title
            self._title_from(self._builder.take())
            self._rollout.compactions = self._rollout.compactions[-1:]
            self.session, self._open = self._new_session(self.title), OpenTail()
            self._pending = kept_message(self._rollout.compactions[-1])

    def _title_from(self, messages: list[Message]) -> None:
        if not self.title:
            self.title = title_of(messages, self._rollout.developer_texts) or ""
            if self.title:
                with self.journal.updating(), contextlib.suppress(ValueError):
                    self.session.rename(self.title)

    def _settle(self, done: list[Message]) -> None:
        """Commit the messages that can no longer change with the results that answer them (all before the last
        assistant message); keep that message and what follows open."""
        self._title_from(done)
        pending = [*self._pending, *done]
        building = self._builder.open_message()
        window = [*pending, *([building] if building is not None else [])]
        cut = next((i for i in range(len(window) - 1, -1, -1) if window[i]["role"] == "assistant"), 0)
        if cut:
            self._commit(pending[:cut])
        self._pending = pending[cut:]
        self._open = OpenTail(None, window[cut:], None, self.session.counter)

    def _commit(self, messages: list[Message]) -> None:
        fixed = repair(messages)
        new = fixed.messages
        if new and fixed.origins[0] is None and messages[0]["role"] == "assistant":
            new = new[1:]  # the placeholder repair put before a leading assistant message: the history holds it
        try:
            with self.journal.updating():
                self.session.append(new, reported_usage=self._rollout.usage)
        except ConversationError:  # the history's end and these do not fit: commit the window afresh
            self.rebuilds += 1
            whole = repair([*self.session.messages, *messages]).messages
            self.session = self._new_session(self.title)
            with self.journal.updating():
                self.session.append(whole, reported_usage=self._rollout.usage)
            new = whole
        self._observe_file_uses(new)

    def _observe_file_uses(self, messages: list[Message]) -> None:
        """The read-file state learns Codex's reads and changes (``cat``, ``sed -n``, ``nl``, ``apply_patch``) as
        the engine's ``Read``/``Edit``/``Write`` calls: its own observation of the messages sees only shell commands.
        A commit ends before an assistant message, so each call's result is committed with it."""
        cwd = self._rollout.cwd or self.session.workspace_root or ""
        for read, block in self.session.read_state.observe(file_use_view(messages, cwd)):
            self.session.state.seen.remember_result(read, block)
