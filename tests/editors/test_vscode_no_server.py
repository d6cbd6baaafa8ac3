"""A server that dies as it starts, in VS Code (code-server): editors/vscode/e2e/noServer.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_a_server_that_dies_as_it_starts_is_said_once_with_its_cause() -> None:
    """The chat says the server did not start, with the traceback's last line and the ways on, and offers no input
    that nothing would answer; one toast says it too (in our words, not one per attempt of the language client);
    Show Server Log opens the log with the traceback."""
    run_in_code_server(
        "noServer.mjs",
        (
            "the chat says: \"Compact's server did not start",
            "no input",
            "one toast: \"Compact's server did not start",
            "with Open Settings and Show Server Log",
            "the Sessions view says: \"Compact's server did not start, so no session can be listed or made",
            "Open Settings shows compactLsp.server.command",
            "Show Server Log opens the log with the traceback",
            "PASS",
        ),
    )
