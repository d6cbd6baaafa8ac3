"""Permission prompts: writes, edits, memory writes and shell commands ask the user before they run.

The question goes through an injected async callback (the language server answers it with
``window/showMessageRequest``: "Allow once", "Allow for this session", "Deny"). "Allow for this session"
covers every later request of the same kind in this chat session. A denial, a dismissed prompt or a prompt
that fails is a "no": the tool then returns an is_error result and the path is remembered as denied.

Reading or editing a file outside the work roots asks for that file alone (``read_outside``, ``edit_outside``):
either "Allow" admits that one file to the session (engine/files/admitted_files.py), never every file outside.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

log = logging.getLogger(__name__)

PermissionKind = Literal["write", "edit", "memory", "shell", "read_outside", "edit_outside"]
Decision = Literal["allow_once", "allow_session", "deny"]

ALLOW_ONCE = "Allow once"
ALLOW_SESSION = "Allow for this session"
DENY = "Deny"
ACTIONS: tuple[str, ...] = (ALLOW_ONCE, ALLOW_SESSION, DENY)
"""The prompt's buttons, in order; their titles are what the client sends back."""

_DECISIONS: dict[str, Decision] = {ALLOW_ONCE: "allow_once", ALLOW_SESSION: "allow_session", DENY: "deny"}

_VERBS: dict[PermissionKind, str] = {
    "write": "write",
    "edit": "edit",
    "memory": "save a memory to",
    "shell": "run a shell command:",
    "read_outside": "read a file outside the workspace:",
    "edit_outside": "edit a file outside the workspace:",
}

PER_FILE: frozenset[PermissionKind] = frozenset({"read_outside", "edit_outside"})
"""Kinds answered file by file: "Allow for this session" admits the file, not the kind."""


@dataclass(frozen=True)
class PermissionRequest:
    kind: PermissionKind
    tool: str
    target: str
    """What is touched, as the user should read it: a workspace-relative path, or the command."""
    detail: str = ""
    """A short preview (the start of the new text, the command's first line)."""
    resolved: str | None = None
    """Where ``target`` really leads after resolving symlinks, when that is somewhere else."""

    @property
    def prompt(self) -> str:
        text = f"The agent wants to {_VERBS[self.kind]} {self.target}"
        if self.resolved is not None:
            text += f" (resolves to {self.resolved})"
        return f"{text}\n\n{self.detail}" if self.detail else text


AskFn = Callable[[PermissionRequest], Awaitable[Decision]]


def decision_for(title: str | None) -> Decision:
    """The decision a prompt button stands for; anything else (dismissed, unknown) is a denial."""
    return _DECISIONS.get(title or "", "deny")


@dataclass
class Permissions:
    """One chat session's answers: what is allowed for the session, and which paths were denied."""

    ask: AskFn | None = None
    """None: nobody can be asked, so everything that needs permission is denied."""
    allowed_kinds: set[PermissionKind] = field(default_factory=set)
    denied_paths: set[str] = field(default_factory=set)
    """Real paths the user refused; they are never rehydrated."""

    async def request(self, request: PermissionRequest, real_path: str | None = None) -> bool:
        """Ask (unless allowed for the session); True to go ahead."""
        if request.kind in self.allowed_kinds:
            return True
        decision: Decision = "deny"
        if self.ask is not None:
            try:
                decision = await self.ask(request)
            except Exception as exc:  # a client that cannot show the prompt: the safe answer is no
                log.warning("permission prompt failed, treating it as a denial: %s", exc)
        if decision == "allow_session" and request.kind not in PER_FILE:
            self.allowed_kinds.add(request.kind)
        if decision == "deny":
            if real_path is not None:
                self.denied_paths.add(real_path)
            return False
        return True
