"""The compaction timeline and the warning before an agent compacts, in VS Code (code-server), as a user meets them:
editors/vscode/e2e/timeline.mjs, on the transcript the real Claude Code wrote with our hook."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_the_warning_comes_before_claude_code_compacts_and_the_timeline_shows_both_compactions() -> None:
    """Claude Code's session grows to 990k of its 1M window while the user watches: one warning says it compacts by
    itself at its next step, with what to do (buttons Pin a File…, Show Timeline, Let It Run); after it compacted,
    Show Timeline opens both compactions, the automatic one against the 967k threshold, the hook's receipt with the
    files it delivered, read-only (no dirty or Untitled tab)."""
    run_in_code_server(
        "timeline.mjs",
        (
            "Claude Code's session open: 18k / 1M in the status bar",
            "warning: ",
            "timeline: ",
            "PASS",
        ),
    )
