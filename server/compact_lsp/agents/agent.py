"""The one contract every agent beside us implements (Claude Code, Codex, Qwen Code, Gemini CLI): what the command
line, the hook and the server need of it. Each agent's room (``agents/<name>/``) describes itself once, in its
``agent.py``, and agents/registered.py lists the descriptions: adding an agent is one room and one line there, and
nothing above (cli/, lsp/) switches on which agent it is.

A description is light: its heavy parts (the transcript reader, the hook) are imported when first used, so the
hook, which starts fresh at every compaction, pays only for the one agent it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from compact_lsp.agents.agent_log import AgentLog
    from compact_lsp.agents.followed_window import AgentCompaction
    from compact_lsp.agents.hook_io import HookInput
    from compact_lsp.agents.json_settings import JsonHookFile
    from compact_lsp.agents.settings_files import HookChange
    from compact_lsp.agents.shown_blocks import ShownRecords
    from compact_lsp.engine.conversation.messages import Message
    from compact_lsp.engine.conversation.next_compaction import AutoCompaction
    from compact_lsp.engine.conversation.usage import ContextUsage
    from compact_lsp.engine.files.working_set import WorkingSet
    from compact_lsp.engine.session.context_session import ContextSession
    from compact_lsp.engine.session.session_status import SessionStatus
    from compact_lsp.store.session_lock import SessionBusy


MakeSession = Callable[[str, str], "ContextSession"]
"""Makes the read-only ``ContextSession`` of a followed transcript: (session id, title)."""


class Followed(Protocol):
    """One of the agent's transcripts, read as it grows, as a read-only session (the server's side of it is
    lsp/following/)."""

    id: str
    session: ContextSession
    version: int
    """Counts the updates that changed the session (what a published status describes)."""

    @property
    def path(self) -> Path: ...

    @property
    def messages(self) -> list[Message]: ...

    @property
    def timestamps(self) -> list[str | None]: ...

    def usage(self) -> ContextUsage: ...

    def status(self, read_files: bool = True) -> SessionStatus: ...

    def update(self) -> bool:
        """Read what was appended; True when the session changed."""
        ...

    def context_window(self) -> int | None:
        """The context window the agent works with, as its transcript tells it (None: not told)."""
        ...

    def auto_compaction(self, window: int | None) -> AutoCompaction | None:
        """The agent's automatic compaction as configured where it runs, for a model of ``window`` tokens (its
        threshold, or what turns it off); None: not told."""
        ...

    def last_activity(self) -> float | None:
        """When the agent last wrote the transcript (epoch seconds; None: cannot tell)."""
        ...

    def turns(self) -> int:
        """The user turns in the window followed: the pace of the agent's next automatic compaction."""
        ...

    def refusal(self) -> SessionBusy:
        """What a change to the session is refused with: the agent owns its context (say where to compact it)."""
        ...

    plan_in_ledger: bool
    """Whether the agent's hook puts the open plan items in the ledger (``compact/workingSet``)."""

    def working_set(self) -> WorkingSet:
        """What the agent changed, read and ran in the window followed, as its hook reads it."""
        ...

    def recorded_compactions(self) -> list[AgentCompaction]:
        """The agent's own compactions, oldest first, as its transcript recorded them (``compact/timeline``); read
        from the file alone, off the loop, without the session's lock."""
        ...

    def chat_entries(self) -> list[dict[str, Any]] | None:
        """The agent's whole conversation for its chat (``compact/transcript``, before ``shown_entries``): every
        message as it happened and a marker at each of its compactions (``shown_blocks.agent_marker``), read from
        the file alone like ``recorded_compactions``; None: its transcript tells only the window the follower
        holds, which the chat then shows. ``OSError``: the file is gone or replaced since it was followed."""
        ...


@dataclass(frozen=True)
class FollowedFolder:
    """Where a workspace's transcripts of one agent are, and how to watch them."""

    folder: Path
    recursive: bool
    levels_to_wait: int
    """While ``folder`` does not exist, how many folders above it to watch for it (0: it must exist)."""
    wanted: Callable[[str], bool]
    """Whether a path written is one of the workspace's transcripts (called on the watcher's thread)."""
    newest: Callable[[int], list[Path]]
    """The newest transcripts, at most that many: read at start."""
    open: Callable[[Path, MakeSession], Followed | None]
    """A transcript as a followed session, or None when it is not one to follow (yet); blocking, off the loop."""


class AgentBeside(Protocol):
    """An agent beside us (see the module doc)."""

    @property
    def name(self) -> str:
        """Its word on the command line (``compact-lsp <name> hook``), its hook log's name, its sessions'
        source."""
        ...

    @property
    def owner(self) -> str:
        """Its name in what we say (``Claude Code``)."""
        ...

    @property
    def settings_words(self) -> str:
        """What its settings file is called in what we say."""
        ...

    @property
    def scope_help(self) -> Mapping[str, str]:
        """Where each install scope (``project``, ``user``) writes, for ``--help``."""
        ...

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        """Its hook's additional context after a compaction (what the agent does not re-attach itself, within
        its hook's character limit), and figures for the log; None: nothing to add."""
        ...

    def hook_answer(
        self, raw: bytes, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        """Its hook's whole answer on stdout for the hook input ``raw`` (None: print nothing) and figures for the
        log (``session``: its id); ``NotForUs`` for input it has nothing to do with, before anything heavy is
        imported. A ``SessionStart`` hook answers with ``hook_io.session_start_answer`` (``hook_context`` wrapped);
        a hook that runs on every request, as Gemini CLI's, answers its own event."""
        ...

    def settings_path(self, scope: str, project_dir: str) -> Path: ...

    def install_hook(self, path: Path, project_dir: str | None) -> HookChange: ...

    def uninstall_hook(self, path: Path, project_dir: str | None) -> HookChange: ...

    def installed_commands(self, path: Path) -> list[str]:
        """The commands of our hook in its settings file at ``path`` (none when missing or not ours to read)."""
        ...

    def installed_outdated(self, path: Path) -> str | None:
        """What a reinstall would add to our hook installed at ``path`` by an earlier version (``compact-lsp
        doctor`` says it), or None: current, or not installed there."""
        ...

    @property
    def after_install(self) -> str:
        """What the user must still do after ``install-hook`` (``, then trust it in Codex (/hooks)``), or ``""``."""
        ...

    @property
    def settings_class(self) -> type | None:
        """Its settings object on the wire (``claudeCode``), or None: a frozen dataclass whose ``SECTION`` is its wire
        key and whose fields are declared with ``setting`` (engine/setting_ranges.py). The server parses it with
        the rest and hands the parsed object to ``follows`` and ``followed_folder``; the schema, the editors'
        settings and the docs' table list it (``python -m compact_lsp.cli.generate_settings``)."""
        ...

    def followed_folder(self, settings: Any, workspace_root: str) -> FollowedFolder | None:
        """Its transcripts for the workspace, given its follow settings; None when there is nothing to watch."""
        ...

    def follows(self, settings: Any) -> bool | None:
        """Its settings' ``follow``: True, False, or None (when its folder exists)."""
        ...

    @property
    def copy_prefix(self) -> str:
        """What an imported copy's id starts with (``cx-``, then the agent's own id), never its followed session's
        (the copy is the user's, writable; the followed one stays the agent's): what the session list says it is
        copied from."""
        ...

    def recognises(self, path: str) -> bool:
        """Whether the file at ``path`` is one of its logs by a mark of its own (its first records); a log no
        agent recognises is read by ``registered.UNMARKED_LOGS``. Light: no reader imported."""
        ...

    def read_log(self, path: str) -> AgentLog:
        """Its log at ``path`` read whole, for ``compact-lsp inspect`` and ``import`` (agents/agent_log.py);
        ``OSError`` or ``ValueError`` when it cannot be read at all."""
        ...

    @property
    def shown_records(self) -> ShownRecords:
        """How its records are shown as its user saw them (``compact/transcript`` of its followed or imported
        sessions: agents/shown.py)."""
        ...

    def imported_working_set(self, messages: list[Message], cwd: str) -> WorkingSet | None:
        """An imported copy's working set as its hook reads it, when that is not what the session tracked (a Codex
        rollout's: its ``apply_patch`` hunks and reads told exactly, the plan in the ledger); None: the
        session's own."""
        ...


class AgentRoom:
    """What a description only points to in its room, imported when first used: the hook's context is the room's
        ``hook.context_for``, its logs read whole its ``log.recognises`` and ``log.read_log``, how its records are shown
    its ``shown.SHOWN``."""

    room: str
    """The room's module (``compact_lsp.agents.claude_code``)."""
    settings_at: str | None = None
    """Its settings class in its room as ``module:Class`` (``live:CodexSettings``), imported when first used;
    None: it has no settings."""

    @property
    def settings_class(self) -> type | None:
        if self.settings_at is None:
            return None
        module, _, name = self.settings_at.partition(":")
        found: type = getattr(import_module(f"{self.room}.{module}"), name)
        return found

    def follows(self, settings: Any) -> bool | None:
        """Its settings' ``follow`` (None: unset, or no settings)."""
        follow: bool | None = getattr(settings, "follow", None)
        return follow

    name: str
    scope_help: Mapping[str, str]

    def settings_path(self, scope: str, project_dir: str) -> Path:
        """Where each install scope's settings file is (for the hook: which of them hold our hook too)."""
        raise NotImplementedError(f"{self.room} names no settings file")

    def hook_context(
        self, inp: HookInput, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        context_for = import_module(f"{self.room}.hook").context_for
        result: tuple[str | None, Mapping[str, Any]] = context_for(inp, budget=budget, keep=keep)
        return result

    def installed_outdated(self, path: Path) -> str | None:
        return None

    copy_prefix: str

    def recognises(self, path: str) -> bool:
        recognised: bool = import_module(f"{self.room}.log").recognises(path)
        return recognised

    def read_log(self, path: str) -> AgentLog:
        log: AgentLog = import_module(f"{self.room}.log").read_log(path)
        return log

    def imported_working_set(self, messages: list[Message], cwd: str) -> WorkingSet | None:
        return None

    @property
    def shown_records(self) -> ShownRecords:
        shown: ShownRecords = import_module(f"{self.room}.shown").SHOWN
        return shown

    hook_sources: tuple[str, ...] = ("compact",)
    """The ``SessionStart`` sources its hook answers (the matcher its install writes selects them)."""

    def hook_answer(
        self, raw: bytes, *, budget: int, keep: list[object] | None
    ) -> tuple[str | None, Mapping[str, Any]]:
        """A ``SessionStart`` hook's answer: ``hook_context`` as ``additionalContext``."""
        from compact_lsp.agents.hook_io import session_start_answer

        return session_start_answer(self, raw, budget=budget, keep=keep, sources=self.hook_sources)


class JsonSettingsRoom(AgentRoom):
    """An agent whose hook lives in a JSON settings file: the room's ``settings.SETTINGS`` (agents/json_settings.py)
    installs it."""

    def _settings(self) -> JsonHookFile:
        settings: JsonHookFile = import_module(f"{self.room}.settings").SETTINGS
        return settings

    def settings_path(self, scope: str, project_dir: str) -> Path:
        return self._settings().settings_path(scope, project_dir)

    def install_hook(self, path: Path, project_dir: str | None) -> HookChange:
        return self._settings().install_hook(path, project_dir=project_dir)

    def uninstall_hook(self, path: Path, project_dir: str | None) -> HookChange:
        return self._settings().uninstall_hook(path, project_dir=project_dir)

    def installed_commands(self, path: Path) -> list[str]:
        return self._settings().installed_commands(path)

    def installed_outdated(self, path: Path) -> str | None:
        return self._settings().installed_outdated(path)
