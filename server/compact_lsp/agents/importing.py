"""Import Claude Code sessions (and Codex CLI rollouts, Qwen Code transcripts, Gemini CLI session files) into the
session store, as a managed session of a workspace.

Shared by ``compact-lsp import`` and the server's ``compact/importSession`` method. The Claude Code file is only
read; the imported session is a new journal whose records are what the engine would have written had the
conversation happened under compact-lsp.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compact_lsp.agents.gemini_cli.chat_log import is_gemini_session
from compact_lsp.agents.gemini_cli.chat_log import read_chat as read_gemini
from compact_lsp.agents.qwen_code.chat_log import is_qwen_chat, read_chat
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.codex.file_uses import shell_reads
from compact_lsp.engine.codex.rollout import is_rollout, read_rollout
from compact_lsp.engine.codex.working_set import codex_working_set
from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter, TokenCounter
from compact_lsp.engine.conversation.validate import repair
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.engine.files.working_set import WorkingSet
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.store.session_store import SessionStore, StoreError

CODEX_COPY_PREFIX = "cx-"
"""An imported Codex rollout's id: ``cx-<thread id>``, never the followed session's ``codex-<thread id>`` (the copy
is the user's, writable; the followed one stays Codex's)."""
QWEN_COPY_PREFIX = "qw-"
"""An imported Qwen Code transcript's id: ``qw-<session id>``, never the followed session's ``qwen-<session id>``."""
GEMINI_COPY_PREFIX = "gm-"
"""An imported Gemini CLI session's id: ``gm-<session id>``."""
CLAUDE_CODE_COPY_PREFIX = "cc-"
"""An imported Claude Code session's id: ``cc-<session id>``."""
_COPIED_FROM = {CLAUDE_CODE_COPY_PREFIX: "Claude Code", CODEX_COPY_PREFIX: "Codex", QWEN_COPY_PREFIX: "Qwen Code",
                GEMINI_COPY_PREFIX: "Gemini CLI"}  # fmt: skip


def imported_from(session_id: str, source: str | None) -> str | None:
    """The agent an imported copy's earlier answers are from, in its words ("Codex"); None for any other session."""
    if source != "import":
        return None
    return next((agent for prefix, agent in _COPIED_FROM.items() if session_id.startswith(prefix)), None)


def copied_working_set(session_id: str, source: str | None, messages: list[Message], cwd: str) -> WorkingSet | None:
    """An imported copy's working set as its agent's hook reads it, when that is not what the session tracked (a
    Codex rollout's copy: its ``apply_patch`` hunks and reads told exactly, the plan in the ledger); None: the
    session's own."""
    if source == "import" and session_id.startswith(CODEX_COPY_PREFIX):
        return codex_working_set(messages, cwd)
    return None


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
    """Import one Claude Code session file or Codex rollout; a session already imported under that id is refused,
    not doubled. All or nothing: the copy is written under a name never listed and renamed once complete, so a
    crash mid-import leaves no copy (an empty one an older version left is replaced)."""
    log = _read_log(path)
    session_id = log.session_id
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
    )
    if log.messages:
        session.append(log.messages)
    if log.shell_cwd is not None:
        _record_shell_reads(session, log.shell_cwd)
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


@dataclass(frozen=True)
class _Log:
    session_id: str
    title: str
    messages: list[Message]
    problems: list[str]
    repairs: list[str]
    shell_cwd: str | None = None
    """Where the agent ran the shell commands it read files with (Codex), to record those reads; None: no such."""


def _record_shell_reads(session: ContextSession, cwd: str) -> None:
    """The files the agent read with its shell (Codex's ``cat``, ``sed -n``, ``nl``, ``head``) are reads of the
    copy, journalled as ours are (tied to the command's result, so clearing it clears them): the read-file state
    knows them, and so do the usage view, ranking and rehydration; a command that did not succeed read nothing."""
    for call_id, path, content, lines in shell_reads(session.messages, cwd):
        session.record_read(path, content, tool_use_id=call_id, start_line=lines.get("offset"),
                            num_lines=lines.get("limit"))  # fmt: skip


def _read_log(path: str | Path) -> _Log:
    """A Claude Code log (``cc-<id>``), a Codex rollout (``cx-<id>``) or a Qwen Code transcript (``qw-<id>``):
    for the last two, what the model holds now (since the agent's last compaction)."""
    if is_gemini_session(str(path)):
        session = read_gemini(str(path))
        fixed = repair(session.messages)
        bad = [f"{session.bad_lines} line(s) could not be read"] if session.bad_lines else []
        return _Log(f"{GEMINI_COPY_PREFIX}{session.session_id or Path(path).stem}", session.title or "",
                    fixed.messages, bad, list(fixed.actions))  # fmt: skip
    if is_qwen_chat(str(path)):
        chat = read_chat(str(path))
        fixed = repair(chat.messages)
        bad = [f"{chat.bad_lines} line(s) could not be read"] if chat.bad_lines else []
        return _Log(f"{QWEN_COPY_PREFIX}{chat.session_id or Path(path).stem}", chat.title or "", fixed.messages, bad,
                    list(fixed.actions))  # fmt: skip
    if is_rollout(str(path)):
        rollout = read_rollout(str(path), developer=True)  # what the model held: its instructions, our hook's files
        fixed = repair(rollout.current_context())
        bad = [f"{rollout.bad_lines} line(s) could not be read"] if rollout.bad_lines else []
        session_id = f"{CODEX_COPY_PREFIX}{rollout.session_id or Path(path).stem}"
        cwd = rollout.cwd or ""
        return _Log(session_id, rollout.title or "", fixed.messages, bad, list(fixed.actions), cwd)
    imported = import_claude_code(path)
    problems = [f"line {p.line_no}: {p.reason}" for p in imported.problems]
    copied = imported.session
    return _Log(f"{CLAUDE_CODE_COPY_PREFIX}{copied.id}", copied.title, copied.messages, problems,
                list(imported.repairs))  # fmt: skip


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
