"""A server that dies as it starts, in VS Code (code-server): editors/vscode/e2e/noServer.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_a_server_that_dies_as_it_starts_is_said_once_with_its_cause() -> None:
    """The chat says the server did not start, with the traceback's last line and the ways on, and offers no input
    that nothing would answer; Show Server Log opens the log with the traceback."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent", shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/noServer.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "the chat says: \"Compact's server did not start",
        "no input",
        "Open Settings shows compactLsp.server.command",
        "Show Server Log opens the log with the traceback",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
