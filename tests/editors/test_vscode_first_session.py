"""A new user's first session in VS Code (code-server): editors/vscode/e2e/firstSession.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_a_first_session_where_new_users_trip() -> None:
    """Restricted Mode says Compact is paused, not broken; a message sent as the folder is trusted is answered; Stop
    says "Cancelled" and keeps what was typed; a reload keeps an unsent message; an edit prompt names unsaved
    changes."""
    run_in_code_server(
        "firstSession.mjs",
        (
            'Restricted Mode: a command says "Paused in Restricted Mode',
            'sent the moment the folder was trusted: answered, no "not running"',
            'stopped mid-answer: "Cancelled: you stopped the agent.',
            "reloaded: the chat and the gauge are back, the unsent text still in the input",
            'the edit prompt says: "src/shop/cart.py has unsaved changes in its editor.',
            "PASS",
        ),
    )
