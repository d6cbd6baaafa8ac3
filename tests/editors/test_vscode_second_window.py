"""A second window on the same folder, in VS Code (code-server): editors/vscode/e2e/secondWindow.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_a_second_window_shows_the_chat_read_only_and_offers_new_chat() -> None:
    """A second window on the same folder shows the first window's chat read-only from the start, in plain words
    (another window writes it; no process id, class or method), with no input; its New Chat is answered."""
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
    run = subprocess.run(["node", "e2e/secondWindow.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "the first window's chat answered",
        'second window, before anything is typed: "This chat is open in another window, which writes it; here it is',
        "no input",
        "New Chat in the second window: a chat of its own, answered",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
