"""The VS Code extension end to end in code-server (editors/vscode/e2e/run.mjs), under pytest.

Runs only where ``editors/vscode/e2e/setup.sh`` has installed code-server, Node 24 and playwright-core (about
2.5 minutes from the npm registry, plus Debian's chromium); otherwise it skips and says what to run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"
WORK = EXTENSION / "e2e" / ".work"
NEEDED = {
    "code-server": WORK / "cs" / "node_modules" / ".bin" / "code-server",
    "playwright-core": WORK / "pw" / "node_modules" / "playwright-core",
    "the extension's node_modules": EXTENSION / "node_modules" / ".bin" / "vsce",
}


def _missing() -> list[str]:
    missing = [name for name, path in NEEDED.items() if not path.exists()]
    if not Path(os.environ.get("CHROMIUM", "/usr/bin/chromium")).exists():
        missing.append("chromium (apt-get install chromium)")
    if shutil.which("npm") is None:
        missing.append("npm")
    return missing


@pytest.mark.slow
@pytest.mark.timeout(1500)  # packaging (up to 600 s) and the run (up to 900 s), not the suite's 180 s default
def test_a_day_of_use_in_code_server() -> None:
    """From Restricted Mode and the walkthrough to a day of use: compaction from the palette, the chat in the side
    bar (an inline approval with a unified diff and the diff editor, links that open files, @file mentions), an
    automatic compaction whose fallback is named, a cancel that reads "Compaction cancelled", a reload that keeps
    the user's chat although Claude Code wrote meanwhile, Claude Code's session read-only with Import to continue,
    Codex's session in Codex's words and as its user saw it, imported as a copy listed once beside it after a reload.
    """
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
    run = subprocess.run(["node", "e2e/run.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=900)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
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
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
