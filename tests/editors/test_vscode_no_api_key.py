"""No API key, in VS Code (code-server): editors/vscode/e2e/noApiKey.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_no_api_key_says_set_api_key_and_keeps_the_message() -> None:
    """Without a key the first message gets what to do in VS Code's words, with Set API Key beside it, no request
    reaches the API, and the message is back in the input to send again."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent && npm run build:tests --silent",
        shell=True,
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/noApiKey.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        'no key: the chat says "No Anthropic API key: Set API Key stores one for Compact; then send your message',
        "the message is back in the input",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
