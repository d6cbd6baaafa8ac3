"""Resetting a setting reaches the server at once, in VS Code (code-server): editors/vscode/e2e/settingsReset.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_removing_a_low_threshold_brings_the_gauge_back_without_a_restart() -> None:
    """The user's own session under compactLsp.autoCompact.threshold = 10 shows the gauge at the threshold (the
    status bar's warning background); the setting removed from settings.json (VS Code sends null, "the default"),
    the gauge is normal again at once, with no restart."""
    run_in_code_server(
        "settingsReset.mjs",
        (
            "threshold 10 in settings.json: the gauge is at the threshold",
            "the setting removed: the gauge is back to normal, no restart",
            "PASS",
        ),
    )
