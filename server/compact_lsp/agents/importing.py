"""Import an agent's log (a Claude Code session, a Codex rollout, a Qwen Code transcript, a Gemini CLI session
file: each registered agent reads its own, agents/agent_log.py) into the session store, as a managed session of a
workspace, under its own id (the agent's ``copy_prefix``, then the agent's id).

Shared by ``compact-lsp import`` and the server's ``compact/importSession`` method. The log is only read; the
imported session is a new journal whose records are what the engine would have written had the conversation
happened under compact-lsp (what the agent's model holds now: for an agent that compacted, since its last
compaction).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compact_lsp.agents import registered
from compact_lsp.agents.agent_log import AgentLog
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter, TokenCounter
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.session.journal import header_record
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.store.session_store import SessionStore, StoreError


def imported_from(session_id: str, source: str | None) -> str | None:
    """The agent an imported copy's earlier answers are from, in its words ("Codex"); None for any other session."""
    agent = registered.copied_from(session_id, source)
    return None if agent is None else agent.owner


def copied_messages(records: Iterable[Mapping[str, Any]]) -> int:
    """How many of an imported copy's journalled messages are its agent's log's: ``import_into_store`` journals them
    as its first append; what follows was said here."""
    first = next((r for r in records if r.get("type") == "append"), None)
    messages = first.get("messages") if first is not None else None
    return sum(isinstance(m, dict) for m in messages) if isinstance(messages, list) else 0


def copied_compaction(header: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What an imported copy's header recorded of its agent's last compaction (``trigger``, ``tokensBefore``,
    ``tokensAfter``), checked; None: not recorded (an older copy, or one of an agent that did not compact)."""
    recorded = header.get("agentCompaction") if header is not None else None
    if not isinstance(recorded, Mapping):
        return None
    trigger = recorded.get("trigger")
    return {
        "trigger": trigger if trigger in ("auto", "manual") else None,
        **{key: _count(recorded.get(key)) for key in ("tokensBefore", "tokensAfter")},
    }


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def copied_working_set(session_id: str, source: str | None, messages: list[Message], cwd: str) -> WorkingSet | None:
    """An imported copy's working set as its agent's hook reads it, when that is not what the session tracked (the
    agent's ``imported_working_set``); None: the session's own."""
    agent = registered.copied_from(session_id, source)
    return None if agent is None else agent.imported_working_set(messages, cwd)


class AlreadyImported(StoreError):
    """The log was imported before, as ``session_id``."""

    def __init__(self, path: str | Path, session_id: str) -> None:
        super().__init__(f"{Path(path).name} was already imported as session {session_id}")
        self.session_id = session_id


@dataclass(frozen=True)
class ImportResult:
    session_id: str
    title: str
    messages: int
    tokens: int
    problems: list[str] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)

    def to_wire(self) -> dict[str, object]:
        return {
            "sessionId": self.session_id,
            "title": self.title,
            "messages": self.messages,
            "tokens": self.tokens,
            "problems": self.problems,
            "repairs": self.repairs,
        }


def import_into_store(
    store: SessionStore,
    path: str | Path,
    *,
    settings: EngineSettings,
    counter: TokenCounter,
    workspace_root: str | None,
) -> ImportResult:
    """Import one agent's log; a session already imported under that id is refused,
    not doubled. All or nothing: the copy is written under a name never listed and renamed once complete, so a
    crash mid-import leaves no copy (an empty one an older version left is replaced)."""
    agent = registered.log_owner(str(path))
    log = agent.read_log(str(path))
    session_id = f"{agent.copy_prefix}{log.session_id}"
    if store.holds(session_id):
        raise AlreadyImported(path, session_id)
    journal = store.partial_journal(session_id)  # all or nothing: written whole, then named (a rename)
    session = ContextSession(
        session_id,
        settings=settings,
        counter=counter,
        title=log.title or Path(path).stem,
        workspace_root=workspace_root,
        journal=journal,
        source="import",
        write_header=False,
    )
    figures = None if log.last_compaction is None else log.last_compaction.to_record()  # what the copy drops
    journal.write(header_record(session_id, title=session.title, system="", created_at=session.created_at,
                                source="import", agent_compaction=figures))  # fmt: skip
    if log.messages:
        session.append(log.messages)
    _record_shell_reads(session, log)
    try:
        store.publish(session_id, journal)
    except FileExistsError:
        raise AlreadyImported(path, session_id) from None
    return ImportResult(
        session_id=session_id,
        title=session.title,
        messages=len(session.messages),
        tokens=session.usage().total,
        problems=log.problems,
        repairs=log.repairs,
    )


def _record_shell_reads(session: ContextSession, log: AgentLog) -> None:
    """The files the agent read with its shell (Codex's ``cat``, ``sed -n``, ``nl``, ``head``) are reads of the
    copy, journalled as ours are (tied to the command's result, so clearing it clears them): the read-file state
    knows them, and so do the usage view, ranking and rehydration; a command that did not succeed read nothing."""
    if log.shell_reads is None:
        return
    for call_id, path, content, lines in log.shell_reads(session.messages):
        session.record_read(path, content, tool_use_id=call_id, start_line=lines.get("offset"),
                            num_lines=lines.get("limit"))  # fmt: skip


def import_sessions_command(paths: Sequence[str], *, workspace: str, session_dir: str | None) -> int:
    """``compact-lsp import``: one line per session on stdout; problems on stderr; non-zero if any failed."""
    workspace_root = real_path(workspace)
    settings = EngineSettings(session_dir=session_dir)
    store = SessionStore(session_dir, workspace_root)
    counter = TiktokenCounter()
    failed = 0
    try:
        for path in paths:
            try:
                result = import_into_store(
                    store, path, settings=settings, counter=counter, workspace_root=workspace_root
                )
            except (OSError, ValueError, StoreError) as exc:
                sys.stderr.write(f"compact-lsp import: {path}: {exc}\n")
                failed += 1
                continue
            sys.stdout.write(
                f"{result.session_id}\t{result.messages} messages\t{result.tokens} tokens\t{result.title[:60]}\n"
            )
            for problem in result.problems:
                sys.stderr.write(f"  {path}: {problem}\n")
    finally:
        store.close()
    return 1 if failed else 0
