"""A server that crashes and does not start again, in VS Code (code-server): editors/vscode/e2e/serverCrash.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_a_server_that_crashes_and_does_not_start_again_is_said_once() -> None:
    """The language client restarts a crashed server by itself; when that start fails the user gets one toast of
    ours with the cause and what to do (none of the client's own), and the chat says it instead of its input."""
    run_in_code_server(
        "serverCrash.mjs",
        (
            "the server runs: the chat has its input",
            "the server crashed and did not start again: one toast, \"Compact's server did not start",
            "PASS",
        ),
    )
