"""The VS Code extension end to end in code-server (editors/vscode/e2e/run.mjs), under pytest.

Runs only where ``editors/vscode/e2e/setup.sh`` has installed code-server, Node 24 and playwright-core (about
2.5 minutes from the npm registry, plus Debian's chromium); otherwise it skips and says what to run.
"""

from __future__ import annotations

import pytest
from tests.editors.vscode_support import run_in_code_server


@pytest.mark.slow
@pytest.mark.timeout(1500)  # packaging (up to 600 s) and the run (up to 900 s), not the suite's 180 s default
def test_a_day_of_use_in_code_server() -> None:
    """From Restricted Mode and the walkthrough to a day of use: compaction from the palette, the chat in the side
    bar (an inline approval with a unified diff and the diff editor, links that open files, @file mentions), an
    automatic compaction whose fallback is named, a cancel that reads "Compaction cancelled", a reload that keeps
    the user's chat although Claude Code wrote meanwhile, Claude Code's session read-only with Import to continue,
    Codex's session in Codex's words and as its user saw it, imported as a copy listed once beside it after a reload.
    """
    run_in_code_server(
        "run.mjs",
        (
            'Restricted Mode: "Compact is paused in Restricted Mode',  # not silence
            "trusted the folder: the chat's input is back",
            "walkthrough: Set your Anthropic API key",
            "server: Starting the server (bundled)",  # from the .vsix, no compact-lsp on PATH
            "Conversation compacted",
            "approval preview: a unified diff of",
            "Show diff opened the diff editor",
            "the proposal's tab closed after the decision",
            "opened data.py at line 3",
            'the chat keeps "Edited src/data.py +1 \u22121"; clicking it opened data.py at the change',
            "@src/main.py attached the file",
            "answered the prompt with the keyboard only",
            "offline summary, because the model failed",
            "the compaction marker opened its summary",
            "compaction in progress, in the chat",
            'cancel: "Compact: Compaction cancelled."',
            "the user's session is current, not Claude Code's newer one",
            "reload: both edits are rows again",
            "Claude Code's session opened read-only: no input, one Import to continue",
            "Import to continue: a managed copy, current",
            "grep row: ",
            "session picker: ",
            "Codex's session read-only, in Codex's words",
            "Import to continue on Codex's session: a copy that takes input; after a reload",
            "Ctrl+Alt+A focused the chat's input",
            "high contrast: the chat follows the theme",
            "PASS",
        ),
        seconds=900,
    )
