"""The work roots: where the agent may work and rehydration may draw files from.

Every workspace folder the editor opened (multi-root) and the directories the user added
(``additionalDirectories``, Claude Code's ``/add-dir``); never anything else. They are an ``AllowedRoots`` value
(``file_gate``), so the gate that re-reads files admits them; the session adds the managed-memory roots that
passed their rule for the gate alone (``ContextSession.allowed_roots``).
"""

from __future__ import annotations

import os

from compact_lsp.engine.files.file_gate import AllowedRoots
from compact_lsp.engine.settings import EngineSettings


def work_roots(workspace_root: str | None, settings: EngineSettings) -> AllowedRoots:
    """The workspace root first, then the other workspace folders, then the added directories (absolute ones
    only: a relative one has nothing to be relative to), resolved and without repeats."""
    given = [workspace_root, *settings.workspace_folders, *settings.additional_directories]
    return AllowedRoots.of(*(p for p in given if p and os.path.isabs(p)))
