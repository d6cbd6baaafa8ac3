"""An agent's log read whole, as ``compact-lsp inspect`` and ``import`` (and ``compact/importSession``) take it:
what its model holds now (since its last compaction), repaired, with the facts its log tells. Each agent's room reads
its own (its description's ``read_log``); the command line measures it and the import journals it, the same for
every agent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from compact_lsp.engine.conversation.messages import Message
from compact_lsp.engine.conversation.validate import repair

ShellRead = tuple[str, str, str, Mapping[str, Any]]
"""A file the agent read with its shell: (the command's call id, the path, what it printed, ``offset``/``limit``)."""


@dataclass(frozen=True)
class CompactionFigures:
    """What an agent's log recorded of its last compaction, as its followed chat's marker shows it (None: not
    recorded; never a made-up 0 or "auto"). An import journals it: the copy keeps only the summary."""

    trigger: str | None
    tokens_before: int | None
    tokens_after: int | None

    def to_record(self) -> dict[str, Any]:
        """As an imported copy's journal header holds it (``agentCompaction``)."""
        return {"trigger": self.trigger, "tokensBefore": self.tokens_before, "tokensAfter": self.tokens_after}


@dataclass(frozen=True)
class AgentLog:
    """One log of an agent, read whole (see the module doc)."""

    session_id: str
    """The agent's own id for the session (an imported copy's is its description's ``copy_prefix`` before it)."""
    title: str
    cwd: str | None
    messages: list[Message]
    """What the model holds now, repaired: valid as the engine takes it."""
    problems: list[str]
    """What could not be read (the import says it on stderr)."""
    facts: dict[str, Any]
    """What ``inspect``'s report says after its message count, under its keys and in its order (``repairs``,
    ``problems``, ``model``, ``assistantTurns``, ``compaction``...)."""
    agent: str | None = None
    """The report's ``agent`` (None: not said, as a Claude Code session's report never said it)."""
    usage: Mapping[str, Any] | None = None
    """The usage the agent's API last reported (None: not told)."""
    window: int | None = None
    """The context window its log names (None: not told)."""
    attachment_texts: frozenset[str] = frozenset()
    """Text blocks the agent attached for the model (counted as attachments)."""
    repairs: list[str] = field(default_factory=list)
    """What the repair changed."""
    shell_reads: Callable[[list[Message]], Iterable[ShellRead]] | None = None
    """The files the agent read with its shell, told from the messages as the imported session holds them: an
    import journals them as reads (None: it reads files only with its file tools)."""
    last_compaction: CompactionFigures | None = None
    """The agent's last compaction's trigger and figures (None: it did not compact)."""


class LogFile(Protocol):
    """What a Codex rollout, a Qwen Code transcript or a Gemini CLI session file tells beside its messages (their
    readers tell the same facts)."""

    @property
    def session_id(self) -> str | None: ...
    @property
    def title(self) -> str | None: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def model(self) -> str | None: ...
    @property
    def usage(self) -> Mapping[str, Any] | None: ...
    @property
    def context_window(self) -> int | None: ...
    @property
    def bad_lines(self) -> int: ...
    @property
    def skipped(self) -> Mapping[str, int]: ...


def unreadable(bad_lines: int) -> list[str]:
    """The problem said of lines that could not be read (none: none)."""
    return [f"{bad_lines} line(s) could not be read"] if bad_lines else []


def window_log(
    agent: str,
    path: str,
    chat: LogFile,
    messages: list[Message],
    *,
    assistant_turns: int,
    history: int = 0,
    compaction: dict[str, Any] | None,
    shell_reads: Callable[[list[Message]], Iterable[ShellRead]] | None = None,
    last_compaction: CompactionFigures | None = None,
) -> AgentLog:
    """The log of an agent whose file tells the window its model holds now (``messages``, before the repair) and
    ``history`` messages before it: the report's ``compaction`` is the agent's own figures."""
    fixed = repair(messages)
    problems = unreadable(chat.bad_lines)
    return AgentLog(
        chat.session_id or Path(path).stem, chat.title or "", chat.cwd, fixed.messages, problems,
        facts={
            "repairs": list(fixed.actions), "model": chat.model, "historyMessages": history,
            "assistantTurns": assistant_turns, "problems": problems, "skippedRecords": dict(chat.skipped),
            "compaction": compaction,
        },
        agent=agent, usage=chat.usage, window=chat.context_window, repairs=list(fixed.actions),
        shell_reads=shell_reads, last_compaction=last_compaction,
    )  # fmt: skip
