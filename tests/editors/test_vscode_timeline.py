"""The compaction timeline and the warning before an agent compacts, in VS Code (code-server), as a user meets them:
editors/vscode/e2e/timeline.mjs, on the transcript the real Claude Code wrote with our hook."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_the_warning_comes_before_claude_code_compacts_and_the_timeline_shows_both_compactions() -> None:
    """Claude Code's session grows to 990k of its 1M window while the user watches: one warning says it compacts by
    itself at its next step, with what to do (buttons Pin a File…, Show Timeline, Let It Run); after it compacted,
    Show Timeline opens both compactions, the automatic one against the 967k threshold, the hook's receipt with the
    files it delivered, read-only (no dirty or Untitled tab)."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent", shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/timeline.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "Claude Code's session open: 18k / 1M in the status bar",
        "warning: ",
        "timeline: ",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
