"""The work roots: where the agent may work and rehydration may draw files from.

Every workspace folder the editor opened (multi-root) and the directories the user added
(``additionalDirectories``, Claude Code's ``/add-dir``); never anything else, and never the root of the disk or the
home directory itself, whatever names it (a workspace folder, a link to one, an added directory): that would open
``~/.ssh`` and every other secret (``too_wide``). They are an ``AllowedRoots`` value
(``file_gate``), so the gate that re-reads files admits them; the session adds the managed-memory roots that
passed their rule for the gate alone (``ContextSession.allowed_roots``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from compact_lsp.engine.files.file_gate import AllowedRoots, is_inside
from compact_lsp.engine.files.usable_path import real_path_or_none

if TYPE_CHECKING:  # the hooks import ``too_wide`` and must not load the settings
    from compact_lsp.engine.settings import EngineSettings


def too_wide(path: str) -> str | None:
    """Why ``path`` may not be a root: it resolves to ``/``, the home directory or a folder holding it (or names no
    folder at all); None when it may be one."""
    real = real_path_or_none(os.path.expanduser(path))
    if real is None:
        return "it cannot name a folder"
    home = real_path_or_none(os.path.expanduser("~")) or os.path.sep
    if real == os.path.sep:
        return "it is the root of the disk"
    if real == home:
        return f"it is your home directory ({home})"
    if is_inside(home, real):
        return f"it resolves to {real}, which holds your home directory"
    return None


def work_roots(workspace_root: str | None, settings: EngineSettings) -> AllowedRoots:
    """The workspace root first, then the other workspace folders, then the added directories (absolute ones
    only: a relative one has nothing to be relative to), resolved, without repeats and without any ``too_wide``
    one."""
    given = [workspace_root, *settings.workspace_folders, *settings.additional_directories]
    return AllowedRoots.of(*(p for p in given if p and os.path.isabs(p) and too_wide(p) is None))
