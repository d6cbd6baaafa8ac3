"""A second window on the same folder, in VS Code (code-server): editors/vscode/e2e/secondWindow.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_a_second_window_shows_the_chat_read_only_and_goes_on_once_the_first_closes() -> None:
    """A second window on the same folder shows the first window's chat read-only from the start, in plain words
    (another window writes it; no process id, class or method), with no input; once the first window closes, the
    chat has its input back at once (it stayed read-only until the next listing) and goes on there, which turns a
    third window's chat read-only at once; its New Chat is answered."""
    run_in_code_server(
        "secondWindow.mjs",
        (
            "the first window's chat answered",
            'second window, before anything is typed: "This chat is open in another window, which writes it; here'
            " it is",
            "no input",
            "the first window closed: the second window's chat has its input back, its history kept",
            "a third window while nobody writes the session: its chat has an input too",
            "a message sent in the second window goes on in the same chat, answered",
            "s after the second one sent, and shows its turn",
            "New Chat in the second window: a chat of its own, answered",
            "PASS",
        ),
    )
