"""A new user's first session in VS Code (code-server): editors/vscode/e2e/firstSession.mjs."""

from __future__ import annotations

import subprocess

import pytest
from tests.editors.test_vscode_e2e import EXTENSION, _missing


@pytest.mark.slow
@pytest.mark.timeout(1200)  # packaging and building the stub (up to 600 s) and the run (up to 300 s)
def test_a_first_session_where_new_users_trip() -> None:
    """Restricted Mode says Compact is paused, not broken; a message sent as the folder is trusted is answered; Stop
    says "Cancelled" and keeps what was typed; a reload keeps an unsent message; an edit prompt names unsaved
    changes."""
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
    run = subprocess.run(["node", "e2e/firstSession.mjs"], cwd=EXTENSION, capture_output=True, text=True, timeout=300)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    for seen in (
        'Restricted Mode: a command says "Paused in Restricted Mode',
        'sent the moment the folder was trusted: answered, no "not running"',
        'stopped mid-answer: "Cancelled: you stopped the agent.',
        "reloaded: the chat and the gauge are back, the unsent text still in the input",
        'the edit prompt says: "src/shop/cart.py has unsaved changes in its editor.',
        "PASS",
    ):
        assert seen in output, f"{seen!r} not in:\n{output}"
