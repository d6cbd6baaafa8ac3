"""A second window on the same folder, in VS Code (code-server): editors/vscode/e2e/secondWindow.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_a_second_window_shows_the_chat_read_only_and_offers_new_chat() -> None:
    """A second window on the same folder shows the first window's chat read-only from the start, in plain words
    (another window writes it; no process id, class or method), with no input; its New Chat is answered."""
    run_in_code_server(
        "secondWindow.mjs",
        (
            "the first window's chat answered",
            'second window, before anything is typed: "This chat is open in another window, which writes it; here'
            " it is",
            "no input",
            "New Chat in the second window: a chat of its own, answered",
            "PASS",
        ),
    )
