"""No API key, in VS Code (code-server): editors/vscode/e2e/noApiKey.mjs."""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_no_api_key_says_set_api_key_and_keeps_the_message() -> None:
    """Without a key the first message gets what to do in VS Code's words, with Set API Key beside it, no request
    reaches the API, and the message is back in the input to send again."""
    run_in_code_server(
        "noApiKey.mjs",
        (
            'no key: the chat says "No Anthropic API key: Set API Key stores one for Compact; then send your message',
            "the message is back in the input",
            "PASS",
        ),
    )
