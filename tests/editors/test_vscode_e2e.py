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
def test_a_day_of_use_in_code_server() -> None:
    """Compaction from the palette, the chat in the side bar (inline approval with the diff editor), an automatic
    compaction whose fallback is named, a cancel that reads "Compaction cancelled", a reload that restores the chat.
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
        timeout=300,
    )
    assert package.returncode == 0, package.stdout + package.stderr
    run = subprocess.run(["node", "e2e/run.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=600)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "server: Starting the server (bundled)" in output, output  # from the .vsix, no compact-lsp on PATH
    assert "Conversation compacted" in output, output
    assert "Show diff opened the diff editor" in output, output
    assert "offline summary, because the model failed" in output, output
    assert 'cancel: "Compact: Compaction cancelled."' in output, output
    assert "reload: chat restored" in output, output
    assert "PASS" in output, output
