"""The real Gemini CLI (``@google/gemini-cli``, installed by tests/gemini_cli/setup.sh) against a strict loopback
Gemini API stub, in its TUI.

One scripted session (scripted.py), run three times in the same project: bare, then with our ``BeforeModel`` hook
installed by ``compact-lsp gemini-cli install-hook --user``, then by ``install-hook`` in the project. Turn 1 reads a
region of a big file and the stub reports a prompt over ``model.compressionThreshold``; the region then changes on
disk; turn 2 starts with Gemini's automatic compression (a summary call and a verification call), then reads a
small file; turn 3 asks again (a typed ``/compress``: test_real_gemini_typed_compress.py). Every assertion is
about what the CLI sent to the stub: our context, with the region as it is now, reached the model on the first
request after the compression and on every later one, and nothing of ours before; every request is the bare run's
but for our block after the summary.
"""

from __future__ import annotations

import time

import pytest
from tests.gemini_cli.gemini_cli import GeminiHome, needs_gemini_cli
from tests.gemini_cli.scripted import same_but_ours, session

pytestmark = needs_gemini_cli

PROJECT_SETTINGS_LISTED = ("├───small.py\n└───.gemini/\n    └───settings.json\n", "└───small.py\n")
"""The session context lists the project's files: with the hook in the project, its .gemini/settings.json too."""


def test_after_gemini_compresses_our_context_joins_the_summary_and_nothing_else_changes(gemini: GeminiHome) -> None:
    bare = session(gemini, "bare")
    assert "installed" in gemini.cli("install-hook", "--user")
    same_but_ours(session(gemini, "user"), bare)
    assert "added" in gemini.hook_log.read_text()
    # the project's .gemini/settings.json, in the trusted folder, runs it the same way
    assert "removed" in gemini.cli("uninstall-hook", "--user")
    assert "installed" in gemini.cli("install-hook")
    assert (gemini.project / ".gemini" / "settings.json").is_file()
    same_but_ours(session(gemini, "project"), bare, PROJECT_SETTINGS_LISTED)


def test_a_cli_that_ends_before_its_prompt_is_said_with_its_status_and_stderr(gemini: GeminiHome) -> None:
    """What the harness says when the CLI ends at start (the empty screen CI once showed for 90 s): at once, with
    its exit status, its stderr and its last screen."""
    died = gemini.home / "dies.sh"
    error = "Error: Failed to start child process: spawn ENOMEM"
    died.write_text(f"#!/bin/sh\necho '{error}' >&2\nexit 41\n")
    died.chmod(0o700)
    gemini.command = [str(died)]
    started = time.monotonic()
    with pytest.raises(AssertionError) as failed:
        gemini.start()
    said = str(failed.value)
    assert time.monotonic() - started < 30  # not the 90 s deadline
    assert said.startswith("Gemini CLI exited before it got to: the prompt") and "exit status: 41" in said
    assert f"--- gemini's stderr ---\n{error}" in said
    assert "--- screen ---" in said and "(no screen" not in said  # the pane kept, its tmux server still there
