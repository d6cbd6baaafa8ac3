"""Ctrl+Alt+A reaches the chat's input from anywhere, in VS Code (code-server): editors/vscode/e2e/keyboard.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging (up to 600 s) and the run (up to 300 s)
def test_ctrl_alt_a_puts_what_is_typed_in_the_chat_from_the_explorer_and_an_editor() -> None:
    """From the Explorer (where VS Code's own Ctrl+Alt+C copies the file's path) and from an editor, Ctrl+Alt+A
    opens the chat with the focus in its input: what the user types next is in the input, not in the file."""
    run_in_code_server(
        "keyboard.mjs",
        (
            "from the Explorer: Ctrl+Alt+A focused the chat's input, the typed text is in it",
            "from the editor: Ctrl+Alt+A focused the chat's input, the typed text is in it",
            "PASS",
        ),
    )
