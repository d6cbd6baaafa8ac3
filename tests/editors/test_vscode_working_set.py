"""The working set in VS Code (code-server), as a user meets it: editors/vscode/e2e/workingSet.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_the_working_set_of_a_claude_code_session_opens_its_files_in_code_server() -> None:
    """Compact: Show Working Set from the palette shows the last test with its exit status and failing test, the
    edited file with +2 −1 and the stale read, in a read-only panel (no dirty or Untitled tab); a click on a file
    opens it; the Sessions tree's context menu and the usage view's link show it again."""
    run_in_code_server(
        "workingSet.mjs",
        (
            "3 facts",
            "Last test uv run pytest -q exit 1 | FAILED tests/test_app.py::test_b - assert 3 == 2",
            "src/app.py +2 −1",
            "notes.md now 28 bytes",
            "a click on src/app.py opened it in an editor",
            "the Sessions tree's context menu shows it again",
            "the usage view's Working set link opens it",
            "PASS",
        ),
    )
