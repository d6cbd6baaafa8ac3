"""Managed memory: project, user and team directories of durable notes the model reads on demand.

Each root may hold a ``MEMORY.md`` index, loaded into the system prompt (capped, and kept while the file is the
same: ``memory_index.py``); the topic files it lists are read lazily with the read tool, and microcompaction must
not clear those reads (``make_preserve_read``).

Containment is decided on realpaths: a path is managed memory when its realpath lies inside a root's realpath.
A symlink inside a root that points outside is therefore not managed, and ``/a/memory2`` is not inside
``/a/memory``.

Roots (``from_settings``), each kind in this order (the first project root is where ``remember`` writes):

- project: ``memory.projectRoot`` when the user set it, else ``<workspace>/.compact/memory``; then, when they
  exist, Claude Code's auto-memory ``~/.claude/projects/<project>/memory/`` (``<project>``: the workspace path
  with every character but letters and digits as ``-``) and Qwen Code's ``~/.qwen/projects/<sanitized git
  root>/memory/`` (the same naming, of the git repository holding the workspace);
- user: ``memory.userRoot``, else ``platformdirs.user_config_dir("compact-lsp")/memory``;
- team: ``memory.teamRoot``; then, when it exists, Qwen Code's team memory ``<git root>/.qwen/team-memory/``.

A memory root widens what the tools may read (and ``remember`` writes into the project root), so
``from_settings`` admits a root only when it passes its rule, and lists the others in ``ignored``:

- a root the repository provides (the in-workspace default, Qwen's team memory in the repository) counts only
  when its realpath lies strictly inside the workspace's realpath: a repository that ships ``.compact/memory``
  as a symlink to ``/`` or ``~`` gets no memory root, not the whole disk;
- a root the user provides (a setting, which VS Code takes from the user's settings only, or a default under
  the user's own home or config directory) may lie anywhere, outside the workspace too;
- no root may resolve to ``/``, the home directory or an ancestor of it, which would open everything.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from compact_lsp.engine.files.allowed_roots import too_wide
from compact_lsp.engine.files.memory_index import IndexCache, MemoryIndex, RootKind, read_index
from compact_lsp.engine.files.usable_path import real_path, real_path_or_none
from compact_lsp.engine.settings import MemorySettings

log = logging.getLogger(__name__)

MEMORY_SECTION_INTRO = (
    "# Managed memory\n"
    "Durable notes kept across sessions. Each index below lists memory files; read a file with the read tool "
    "when its topic matters to the task."
)
MEMORY_INDEX_HEADING = "## {title} memory ({path})"

_TITLES: dict[RootKind, str] = {"project": "Project", "user": "User", "team": "Team"}


@dataclass(frozen=True)
class MemoryRoot:
    kind: RootKind
    path: str


@dataclass(frozen=True)
class IgnoredRoot:
    """A configured or default root that failed its rule (see the module doc); it is not used."""

    kind: RootKind
    path: str
    real_path: str
    reason: str

    @property
    def warning(self) -> str:
        return f"compact-lsp: ignoring the {self.kind} memory folder {self.path}: {self.reason}"


def _joined(path: str, base: str | None) -> str:
    """Absolute but not normalised: ``..`` after a symlink must be left for realpath to resolve."""
    return os.path.join(base or os.getcwd(), os.path.expanduser(path))


def _absolute(path: str, base: str | None) -> str:
    return os.path.normpath(_joined(path, base))


def _inside(path_real: str, root_real: str) -> bool:
    """Strictly inside, by path components (commonpath), never by string prefix."""
    if path_real == root_real:
        return False
    try:
        return os.path.commonpath([path_real, root_real]) == root_real
    except ValueError:  # different drives, or mixing absolute and relative
        return False


Provider = Literal["repository", "user"]


def sanitized(path: str) -> str:
    """A path as Claude Code and Qwen Code name its folder under ``projects/``: letters and digits kept, every
    other character ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def git_root(workspace_root: str) -> str | None:
    """The repository holding ``workspace_root`` (the nearest folder with ``.git``), or None."""
    here = os.path.abspath(workspace_root)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _candidates(settings: MemorySettings, workspace_root: str | None) -> list[tuple[RootKind, str, Provider]]:
    """Every root to consider, in order, with who provides it (see the module doc)."""
    out: list[tuple[RootKind, str, Provider]] = []
    if settings.project_root is not None:
        out.append(("project", _absolute(settings.project_root, workspace_root), "user"))
    elif workspace_root:
        out.append(("project", _absolute(os.path.join(workspace_root, ".compact", "memory"), None), "repository"))
    user = settings.user_root
    if user is None:
        import platformdirs

        user = os.path.join(platformdirs.user_config_dir("compact-lsp"), "memory")
    if settings.team_root:
        out.append(("team", _absolute(settings.team_root, workspace_root), "user"))
    if workspace_root:
        home = os.path.expanduser("~")
        repo = git_root(workspace_root)
        spellings = dict.fromkeys([os.path.abspath(workspace_root), real_path(workspace_root)])
        found = [os.path.join(home, ".claude", "projects", sanitized(p), "memory") for p in spellings]
        if repo is not None:
            found.append(os.path.join(home, ".qwen", "projects", sanitized(repo), "memory"))
        out += [("project", path, "user") for path in found if os.path.isdir(path)]
        if repo is not None and os.path.isdir(team := os.path.join(repo, ".qwen", "team-memory")):
            out.append(("team", team, "repository"))
    out.append(("user", _absolute(user, workspace_root), "user"))
    order: dict[RootKind, int] = {"project": 0, "user": 1, "team": 2}
    return sorted(out, key=lambda item: order[item[0]])


class ManagedMemory:
    """The managed-memory roots and what lies inside them."""

    def __init__(
        self,
        project_root: str | None = None,
        user_root: str | None = None,
        team_root: str | None = None,
        *,
        roots: Sequence[MemoryRoot] = (),
    ) -> None:
        given: list[tuple[RootKind, str | None]] = [
            ("project", project_root),
            ("user", user_root),
            ("team", team_root),
        ]
        self.roots: list[MemoryRoot] = [MemoryRoot(kind, _absolute(p, None)) for kind, p in given if p]
        self.roots += roots
        self.ignored: list[IgnoredRoot] = []
        """Roots ``from_settings`` left out because they failed their rule."""
        self.indexes = IndexCache()
        """Each root's ``MEMORY.md`` as last read, kept while the file is the same (memory_index.py)."""

    @classmethod
    def from_settings(cls, settings: MemorySettings, workspace_root: str | None = None) -> ManagedMemory:
        """Roots from settings, relative ones against the workspace, and the defaults (see the module doc)."""
        roots: list[MemoryRoot] = []
        ignored: list[IgnoredRoot] = []
        for kind, path, provider in _candidates(settings, workspace_root):
            reason = _root_problem(path, provider, workspace_root)
            if reason is not None:
                ignored.append(IgnoredRoot(kind, path, real_path(path), reason))
                log.debug("ignoring the %s memory root %s: %s", kind, path, reason)
            elif all(real_path(r.path) != real_path(path) for r in roots):
                roots.append(MemoryRoot(kind, path))
        memory = cls(roots=roots)
        memory.ignored = ignored
        return memory

    def root(self, kind: RootKind) -> MemoryRoot | None:
        return next((r for r in self.roots if r.kind == kind), None)

    def root_kind(self, path: str, cwd: str | None = None) -> RootKind | None:
        """Which root the path's realpath lies in (the innermost, if roots nest), or None."""
        if not isinstance(path, str) or not path:
            return None
        # realpath is not strict: a missing file resolves as far as its existing parents allow.
        real = real_path_or_none(_joined(path, cwd))
        if real is None:  # not a path at all (a NUL byte): no memory
            return None
        best: tuple[int, RootKind] | None = None
        for root in self.roots:
            root_real = real_path(root.path)
            if _inside(real, root_real) and (best is None or len(root_real) > best[0]):
                best = (len(root_real), root.kind)
        return best[1] if best else None

    def is_managed_memory(self, path: str, cwd: str | None = None) -> bool:
        return self.root_kind(path, cwd) is not None

    def load_index(self, kind: RootKind) -> MemoryIndex | None:
        """The first ``kind`` root's ``MEMORY.md``, capped; None when the root or the file does not exist."""
        root = self.root(kind)
        return self._index_of(root) if root is not None else None

    def _index_of(self, root: MemoryRoot) -> MemoryIndex | None:
        return self.indexes.index_of(root.path, lambda path: _contained_index(path, root))

    def load_indexes(self) -> list[MemoryIndex]:
        return [index for root in self.roots if (index := self._index_of(root)) is not None]

    def system_prompt_section(self) -> str:
        """The memory indexes as a system-prompt section; empty when there are none."""
        indexes = [index for index in self.load_indexes() if index.text.strip()]
        if not indexes:
            return ""
        parts = [MEMORY_SECTION_INTRO]
        for index in indexes:
            heading = MEMORY_INDEX_HEADING.format(title=_TITLES[index.kind], path=index.path)
            parts.append(f"{heading}\n{index.text.rstrip()}")
        return "\n\n".join(parts) + "\n"


def _root_problem(path: str, provider: Provider, workspace_root: str | None) -> str | None:
    """Why a root may not be used (see the module doc), or None when it may."""
    real = real_path(path)
    if provider == "repository":
        if not workspace_root:
            return "there is no workspace folder for it to lie in"
        workspace_real = real_path(workspace_root)
        if not _inside(real, workspace_real):
            return f"it resolves to {real}, outside the workspace {workspace_real}"
    if too_wide(real) is not None:
        return f"it resolves to {real}, which would open the whole home directory or more"
    return None


def _contained_index(path: str, root: MemoryRoot) -> MemoryIndex | None:
    """The index at ``path``, read unless it resolves outside its root: a MEMORY.md symlinked out is not memory."""
    if not _inside(real_path(path), real_path(root.path)):
        log.warning("ignoring %s: it resolves outside the %s memory root", path, root.kind)
        return None
    return read_index(path, root.kind)


def make_preserve_read(memory: ManagedMemory, cwd: str | None = None) -> Callable[[str], bool]:
    """The ``preserve_read`` predicate microcompaction takes: reads of managed memory are never cleared."""

    def preserve_read(path: str) -> bool:
        return memory.is_managed_memory(path, cwd)

    return preserve_read
