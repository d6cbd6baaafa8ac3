"""What a followed transcript's session is made of, whichever the agent: a journal that refuses every write but
the follower's own, and the open tail (the last assistant message and what follows it, which may still grow)
counted into its usage and status."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compact_lsp.engine.claude_code.log_lines import LogRecord
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.next_compaction import (
    AutoCompaction,
    UserTurns,
    near_point,
    next_compaction,
    user_turns,
)
from compact_lsp.engine.conversation.tokens import TokenCounter
from compact_lsp.engine.conversation.usage import ContextUsage, build_usage, message_kind_tokens, reported_input_tokens
from compact_lsp.engine.files.hook_receipts import HookReceipt
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.session_status import SessionStatus, status_of
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.store.session_lock import SessionBusy


@dataclass(frozen=True)
class AgentCompaction:
    """One of the agent's own compactions as its transcript recorded it (a ``compact/timeline`` row). A list left
    None is one the agent does not record (its row has no such key)."""

    at: str | None
    trigger: str
    tokens_before: int | None
    tokens_after: int | None
    summary: str | None
    reattached: list[str] | None = None
    """The files the agent re-attached itself (Claude Code)."""
    kept: list[str] | None = None
    """The history the agent kept beside its summary (Codex)."""
    receipts: list[HookReceipt] | None = None
    """What a hook's context became there."""


def marked_compactions(entries: list[dict[str, Any]]) -> list[AgentCompaction]:
    """The agent's compactions as the markers of its chat carry them (``chat_entries``, ``shown_blocks.agent_marker``):
    a room whose chat reads every compaction gives its timeline the same rows, read once."""
    return [
        AgentCompaction(e["at"], e["trigger"], e["tokensBefore"], e["tokensAfter"], e["summary"])
        for e in entries
        if e.get("kind") == "compaction"
    ]


class FollowedJournal:
    """The journal of a followed session: refuses every write except the follower's own updates."""

    def __init__(self, session: str, refusal: Callable[[str], SessionBusy]) -> None:
        self.session = session
        self._refusal = refusal
        """What a write is refused with: the agent owns the session's context."""
        self._updating = False

    @contextlib.contextmanager
    def updating(self) -> Iterator[None]:
        self._updating = True
        try:
            yield
        finally:
            self._updating = False

    def write(self, record: dict[str, Any]) -> None:
        if not self._updating:
            raise self._refusal(self.session)


class OpenTail:
    """The messages that may still grow (the last assistant message and what follows it), the records they come
    from, and their tokens; the session holds everything before them."""

    def __init__(
        self,
        records: list[LogRecord] | None = None,
        messages: list[Message] | None = None,
        stamps: list[str | None] | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.records = records or []
        self.messages = messages or []
        self.stamps = stamps or []
        self.uuids = {r.uuid for r in self.records if r.uuid is not None}
        linked = [r for r in self.records if r.uuid is not None and r.parent is not None]
        self.forked = any(r.parent not in self.uuids and r.parent != linked[0].parent for r in linked[1:])
        """Some record hangs off the history before the tail (a rewind the importer holds beside the branch
        until its response comes): until that settles, only a fresh import of the window is right."""
        self.tokens: dict[str, int] = {}
        for message in self.messages:
            assert counter is not None
            for kind, tokens in message_kind_tokens(counter, message).items():
                self.tokens[kind] = self.tokens.get(kind, 0) + tokens


def agent_usage(
    by_kind: Mapping[str, int],
    settings: EngineSettings,
    reported: int | None,
    window: int | None,
    auto: AutoCompaction | None = None,
    turns: int = 0,
) -> ContextUsage:
    """A followed session's usage as the agent measures it: its own window (``window``; None: not known, ours),
    the input size it last reported as the gauge's figure (the levels follow it: the agent also clears context
    without a trace in its transcript, which only its figure shows), our count beside it as ``estimated``. With
    the agent's own automatic compaction (``auto``), the levels are against its threshold and the usage says how
    far its next compaction is, ``turns`` user turns in."""
    if window:
        settings = replace(settings, context_window=window)
    usage = build_usage(by_kind, settings, reported)
    if reported is not None:
        usage = replace(usage, total=reported, estimated=usage.total)
    if auto is None:
        return usage
    if auto.threshold is not None:
        usage = replace(usage, auto_compact_threshold=auto.threshold, warning_threshold=near_point(auto.threshold))
    return replace(usage, next_compaction=next_compaction(usage.total, auto, turns))


def usage_with_tail(
    session: ContextSession,
    tail: OpenTail,
    reported: dict[str, Any] | None,
    window: int | None = None,
    auto: AutoCompaction | None = None,
    turns_of: Callable[[list[Message]], int] = user_turns,
) -> ContextUsage:
    """A followed session's usage: the committed messages', the open tail's counted in, and the input tokens the
    agent last reported (``reported``, its API's own usage), in the agent's ``window`` (``agent_usage``), against
    the agent's automatic compaction as configured (agents/auto_compaction.py)."""
    usage = session.usage()
    by_kind = dict(usage.by_kind)
    for kind, tokens in tail.tokens.items():
        by_kind[kind] = by_kind.get(kind, 0) + tokens
    turns = turns_of(session.messages) + user_turns(tail.messages) if auto is not None else 0
    return agent_usage(
        by_kind, session.settings, reported_input_tokens(reported) or usage.reported, window, auto, turns
    )


def status_with_tail(
    session: ContextSession,
    tail: OpenTail,
    reported: dict[str, Any] | None,
    read_files: bool = True,
    window: int | None = None,
    auto: AutoCompaction | None = None,
    turns_of: Callable[[list[Message]], int] = user_turns,
) -> SessionStatus:
    """A followed session's status, with the open tail counted in (``status_of``'s ``read_files``)."""
    count = len(session.messages) + len(tail.messages)
    status = status_of(session, read_files=read_files)
    usage = usage_with_tail(session, tail, reported, window, auto, turns_of)
    return replace(status, usage=usage, message_count=count)


class FollowedTranscript:
    """What every agent's followed session shares (agents/agent.py ``Followed``): the session made afresh with the
    refusing journal, the window (committed messages, then the open tail) and its usage and status. Each agent's
    reader sets the attributes and says what the agent last reported (``_reported``)."""

    id: str
    session: ContextSession
    journal: FollowedJournal
    transcript: Any
    """What it reads from; has the file's ``path``."""
    _make: Callable[[str, str], ContextSession]
    _open: OpenTail
    _refused: Callable[[str], SessionBusy]
    cwd: str | None
    """The agent's working directory, as its transcript says (None: not said yet)."""

    def _new_session(self, title: str) -> ContextSession:
        session = self._make(self.id, title)
        session.journal = self.journal
        return session

    def _reported(self) -> dict[str, Any] | None:
        """The input tokens the agent's API last reported, its own usage."""
        raise NotImplementedError

    def context_window(self) -> int | None:
        """The context window the agent works with, as its transcript tells it (None: not told)."""
        raise NotImplementedError

    def last_activity(self) -> float | None:
        """When the agent last wrote the transcript (epoch seconds; None: cannot tell): when it is listed as
        updated, not when we began following it."""
        try:
            return self.path.stat().st_mtime
        except OSError:
            return None

    @property
    def path(self) -> Path:
        path: Path = self.transcript.path
        return path

    def refusal(self) -> SessionBusy:
        return self._refused(self.id)

    @property
    def messages(self) -> list[Message]:
        """The window's messages: the committed ones, then the open tail."""
        return [*self.session.messages, *self._open.messages]

    plan_in_ledger = False
    """Whether the agent's hook puts the open plan items in the ledger (else they come back beside it)."""

    def working_set(self) -> WorkingSet:
        """What the agent changed, read and ran in the window, as its hook reads it (call under the lock)."""
        work = WorkingSet(cwd=self.cwd or self.session.workspace_root or "")
        work.observe(self.messages)
        return work

    def recorded_compactions(self) -> list[AgentCompaction]:
        """The agent's own compactions as its transcript recorded them (agents/agent.py ``Followed``): here,
        none known."""
        return []

    def chat_entries(self) -> list[dict[str, Any]] | None:
        """The agent's whole conversation for its chat (agents/agent.py ``Followed``): here, only the window."""
        return None

    def auto_compaction(self, window: int | None) -> AutoCompaction | None:
        """The agent's automatic compaction as configured where it runs (``agents/<name>/auto_compaction.py``: its
        threshold for ``window``, or what turns it off), for the warning before it compacts; None: not told."""
        return None

    _turns: UserTurns | None = None
    """The committed messages' user turns, counted as they come (each appended line would count them all)."""

    def _turns_of(self, messages: list[Message]) -> int:
        if self._turns is None:
            self._turns = UserTurns()
        return self._turns(messages)

    def turns(self) -> int:
        """The user turns in the window followed: the pace of the agent's next automatic compaction."""
        return self._turns_of(self.session.messages) + user_turns(self._open.messages)

    def usage(self) -> ContextUsage:
        window = self.context_window()
        auto = self.auto_compaction(window)
        return usage_with_tail(self.session, self._open, self._reported(), window, auto, self._turns_of)

    def status(self, read_files: bool = True) -> SessionStatus:
        reported, window = self._reported(), self.context_window()
        auto = self.auto_compaction(window)
        return status_with_tail(self.session, self._open, reported, read_files, window, auto, self._turns_of)
