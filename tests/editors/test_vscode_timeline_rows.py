"""The compaction timeline's other rows in VS Code (code-server), as a user reads them: editors/vscode/e2e/
timelineRows.mjs, on the rollout the real Codex wrote with our hook and on the user's own session."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_the_timeline_shows_codexs_compactions_and_our_micro_full_and_undone_ones() -> None:
    """Codex's session: both automatic compactions against the user's config.toml threshold (50k), with Codex's
    summaries and the hook's receipts; Import to continue makes a copy whose header, Sessions row and picker row say
    "imported from Codex", listed once beside Codex's read-only session. The user's own session: the
    microcompaction, the full compaction and its undo, each with its trigger and the same figures as the chat's
    markers; the whole summary and a cleared result open from their links read-only (no dirty or Untitled tab)."""
    run_in_code_server(
        "timelineRows.mjs",
        (
            "Codex's timeline: 2 compactions by Codex · automatic at 50k tokens.",
            'imported: header "Chat read the modules (imported from Codex)"',
            "our timeline: 3 compactions by Compact",
            "the whole summary opened read-only",
            "the first cleared result opened read-only",
            "PASS",
        ),
    )
