"""Managed memory: project, user and team directories of durable notes the model reads on demand.

Each root may hold a ``MEMORY.md`` index, loaded into the system prompt (capped); the topic files it lists are
read lazily with the read tool, and microcompaction must not clear those reads (``make_preserve_read``).

Containment is decided on realpaths: a path is managed memory when its realpath lies inside a root's realpath.
A symlink inside a root that points outside is therefore not managed, and ``/a/memory2`` is not inside
``/a/memory``.

Default roots (``from_settings``): project ``<workspace>/.compact/memory``; user
``platformdirs.user_config_dir("compact-lsp")/memory``; team: none unless configured.

A memory root widens what the tools may read (and ``remember`` writes into the project root), so
``from_settings`` admits a root only when it passes its rule, and lists the others in ``ignored``:

- the project root counts only when its realpath lies strictly inside the workspace's realpath: a repository
  that ships ``.compact/memory`` as a symlink to ``/`` or ``~`` gets no memory root, not the whole disk;
- the user and team roots come only from the user (settings, or the default under the user's own config
  directory), never from the repository; still, none may resolve to ``/``, the home directory or an ancestor
  of it, which would open everything.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from compact_lsp.engine.files.file_gate import AllowedRoots, open_gated
from compact_lsp.engine.settings import MemorySettings

log = logging.getLogger(__name__)

RootKind = Literal["project", "user", "team"]

INDEX_FILE = "MEMORY.md"
INDEX_MAX_LINES = 200
INDEX_MAX_BYTES = 25_000

INDEX_TRUNCATED_NOTE = "[{name} truncated at {limit}; read the file for the rest]"
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


@dataclass(frozen=True)
class MemoryIndex:
    """A root's ``MEMORY.md`` as loaded for the system prompt."""

    kind: RootKind
    path: str
    text: str
    truncated: bool


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


class ManagedMemory:
    """The managed-memory roots and what lies inside them."""

    def __init__(
        self, project_root: str | None = None, user_root: str | None = None, team_root: str | None = None
    ) -> None:
        given: list[tuple[RootKind, str | None]] = [
            ("project", project_root),
            ("user", user_root),
            ("team", team_root),
        ]
        self.roots: list[MemoryRoot] = [MemoryRoot(kind, _absolute(p, None)) for kind, p in given if p]
        self.ignored: list[IgnoredRoot] = []
        """Roots ``from_settings`` left out because they failed their rule."""

    @classmethod
    def from_settings(cls, settings: MemorySettings, workspace_root: str | None = None) -> ManagedMemory:
        """Roots from settings, relative ones against the workspace; unset roots take the defaults."""
        project = settings.project_root
        if project is None and workspace_root:
            project = os.path.join(workspace_root, ".compact", "memory")
        user = settings.user_root
        if user is None:
            import platformdirs

            user = os.path.join(platformdirs.user_config_dir("compact-lsp"), "memory")
        candidates: dict[RootKind, str | None] = {
            "project": _absolute(project, workspace_root) if project else None,
            "user": _absolute(user, workspace_root),
            "team": _absolute(settings.team_root, workspace_root) if settings.team_root else None,
        }
        ignored: list[IgnoredRoot] = []
        for kind, path in candidates.items():
            reason = _root_problem(kind, path, workspace_root) if path else None
            if path and reason is not None:
                ignored.append(IgnoredRoot(kind, path, os.path.realpath(path), reason))
                log.debug("ignoring the %s memory root %s: %s", kind, path, reason)
                candidates[kind] = None
        memory = cls(project_root=candidates["project"], user_root=candidates["user"], team_root=candidates["team"])
        memory.ignored = ignored
        return memory

    def root(self, kind: RootKind) -> MemoryRoot | None:
        return next((r for r in self.roots if r.kind == kind), None)

    def root_kind(self, path: str, cwd: str | None = None) -> RootKind | None:
        """Which root the path's realpath lies in (the innermost, if roots nest), or None."""
        if not isinstance(path, str) or not path:
            return None
        # realpath is not strict: a missing file resolves as far as its existing parents allow.
        real = os.path.realpath(_joined(path, cwd))
        best: tuple[int, RootKind] | None = None
        for root in self.roots:
            root_real = os.path.realpath(root.path)
            if _inside(real, root_real) and (best is None or len(root_real) > best[0]):
                best = (len(root_real), root.kind)
        return best[1] if best else None

    def is_managed_memory(self, path: str, cwd: str | None = None) -> bool:
        return self.root_kind(path, cwd) is not None

    def load_index(self, kind: RootKind) -> MemoryIndex | None:
        """The root's ``MEMORY.md``, capped; None when the root or the file does not exist."""
        root = self.root(kind)
        if root is None:
            return None
        path = os.path.join(root.path, INDEX_FILE)
        if self.root_kind(path) != kind:  # a MEMORY.md symlinked out of the root is not memory
            log.warning("ignoring %s: it resolves outside the %s memory root", path, kind)
            return None
        return read_index(path, kind)

    def load_indexes(self) -> list[MemoryIndex]:
        return [index for root in self.roots if (index := self.load_index(root.kind)) is not None]

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


def _root_problem(kind: RootKind, path: str, workspace_root: str | None) -> str | None:
    """Why a root may not be used (see the module doc), or None when it may."""
    real = os.path.realpath(path)
    if kind == "project":
        if not workspace_root:
            return "there is no workspace folder for it to lie in"
        workspace_real = os.path.realpath(workspace_root)
        if not _inside(real, workspace_real):
            return f"it resolves to {real}, outside the workspace {workspace_real}"
        return None
    home = os.path.realpath(os.path.expanduser("~"))
    if real == os.path.sep or real == home or _inside(home, real):
        return f"it resolves to {real}, which would open the whole home directory or more"
    return None


def read_index(path: str, kind: RootKind) -> MemoryIndex | None:
    """Read an index file capped at ``INDEX_MAX_LINES`` lines and ``INDEX_MAX_BYTES`` bytes, noting a cut.

    Through the file gate with the index's own folder as the root: a FIFO or a device there is refused
    without blocking, and a link out of the folder is not followed.
    """
    try:
        with open_gated(path, AllowedRoots.of(os.path.dirname(path)), max_bytes=None) as f:
            data = f.read(INDEX_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        log.warning("cannot read memory index %s: %s", path, exc)
        return None
    truncated_at: str | None = None
    if len(data) > INDEX_MAX_BYTES:
        data = data[:INDEX_MAX_BYTES]
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut >= 0 else data
        truncated_at = f"{INDEX_MAX_BYTES} bytes"
    lines = data.decode("utf-8", errors="replace").splitlines()
    if len(lines) > INDEX_MAX_LINES:
        lines = lines[:INDEX_MAX_LINES]
        truncated_at = f"{INDEX_MAX_LINES} lines"
    text = "\n".join(lines)
    if truncated_at:
        text += "\n" + INDEX_TRUNCATED_NOTE.format(name=INDEX_FILE, limit=truncated_at)
    return MemoryIndex(kind=kind, path=path, text=text, truncated=truncated_at is not None)


def make_preserve_read(memory: ManagedMemory, cwd: str | None = None) -> Callable[[str], bool]:
    """The ``preserve_read`` predicate microcompaction takes: reads of managed memory are never cleared."""

    def preserve_read(path: str) -> bool:
        return memory.is_managed_memory(path, cwd)

    return preserve_read
