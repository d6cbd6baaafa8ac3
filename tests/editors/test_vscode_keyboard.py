"""Ctrl+Alt+A reaches the chat's input from anywhere, in VS Code (code-server): editors/vscode/e2e/keyboard.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_ctrl_alt_a_puts_what_is_typed_in_the_chat_from_the_explorer_and_an_editor() -> None:
    """From the Explorer (where VS Code's own Ctrl+Alt+C copies the file's path) and from an editor, Ctrl+Alt+A
    opens the chat with the focus in its input: what the user types next is in the input, not in the file."""
    missing = _missing()
    if missing:
        pytest.skip(f"VS Code e2e not set up ({', '.join(missing)}): run bash editors/vscode/e2e/setup.sh")
    package = subprocess.run(
        "npm run package --silent", shell=True, cwd=EXTENSION, capture_output=True, text=True, timeout=600
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/keyboard.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        "from the Explorer: Ctrl+Alt+A focused the chat's input, the typed text is in it",
        "from the editor: Ctrl+Alt+A focused the chat's input, the typed text is in it",
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
