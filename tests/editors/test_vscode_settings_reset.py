"""Resetting a setting reaches the server at once, in VS Code (code-server): editors/vscode/e2e/settingsReset.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_removing_a_low_threshold_brings_the_gauge_back_without_a_restart() -> None:
    """The user's own session under compactLsp.autoCompact.threshold = 10 shows the gauge at the threshold (the
    status bar's warning background); the setting removed from settings.json (VS Code sends null, "the default"),
    the gauge is normal again at once, with no restart."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent", shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/settingsReset.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "threshold 10 in settings.json: the gauge is at the threshold",
        "the setting removed: the gauge is back to normal, no restart",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
