"""The working set in VS Code (code-server), as a user meets it: editors/vscode/e2e/workingSet.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_the_working_set_of_a_claude_code_session_opens_its_files_in_code_server() -> None:
    """Compact: Show Working Set from the palette shows the last test with its exit status and failing test, the
    edited file with +2 −1 and the stale read, in a read-only panel (no dirty or Untitled tab); a click on a file
    opens it; the Sessions tree's context menu and the usage view's link show it again."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent", shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/workingSet.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "3 facts",
        "Last test uv run pytest -q exit 1 | FAILED tests/test_app.py::test_b - assert 3 == 2",
        "src/app.py +2 −1",
        "notes.md now 28 bytes",
        "a click on src/app.py opened it in an editor",
        "the Sessions tree's context menu shows it again",
        "the usage view's Working set link opens it",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
