"""The real Gemini CLI (``@google/gemini-cli``, installed by tests/gemini_cli/setup.sh) against a strict loopback
Gemini API stub, in its TUI.

One scripted session, run twice in the same project: bare, then with our ``BeforeModel`` hook installed by
``compact-lsp gemini-cli install-hook --user``. Turn 1 reads a region of a big file and the stub reports a prompt
over ``model.compressionThreshold``; the region then changes on disk; turn 2 starts with Gemini's automatic
compression (a summary call and a verification call), then reads a small file; turn 3 asks again. Every assertion is
about what the CLI sent to the stub: our context, with the region as it is now, reached the model on the first
request after the compression and on every later one, and nothing of ours before; every request is the bare run's
but for our block after the summary.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.gemini_cli.gemini_cli import OVER_THRESHOLD, GeminiHome, needs_gemini_cli
from tests.gemini_cli.gemini_stub import GeminiStub, Reply, Request, call, is_compression, text

from compact_lsp.agents.gemini_cli.hook import HEADER
from compact_lsp.agents.gemini_cli.request import TAG

pytestmark = needs_gemini_cli

SUMMARY = "<state_snapshot>The user asked what step_33 returns; big.py lines 100-120 were read.</state_snapshot>"
CHANGED = "    return 3300  # changed on disk after the read"
OURS = f"<{TAG}>"


def script() -> tuple[dict[str, int], Any]:
    state = {"n": 0}

    def answer(request: Request) -> Reply:
        if is_compression(request):
            return [text(SUMMARY)], 1_000
        if request["method"] != "streamGenerateContent":  # its utility calls (a one-line summary)
            return [text('{"title": "Reading big.py"}')], 100
        state["n"] += 1
        steps: dict[int, Reply] = {
            1: ([call("read_file", {"file_path": "big.py", "start_line": 100, "end_line": 120})], 5_000),
            2: ([text("Read it.")], OVER_THRESHOLD),
            3: ([call("read_file", {"file_path": "small.py"})], 6_000),
        }
        return steps.get(state["n"], ([text(f"Answer {state['n']}.")], 6_000))

    return state, answer


def big_file() -> str:
    return "".join(f"def step_{i}():\n    return {i}\n\n" for i in range(3000))


@pytest.fixture
def gemini(tmp_path: Path) -> Iterator[GeminiHome]:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "small.py").write_text("SMALL = 'kept as the CLI sent it'\n")
    stub = GeminiStub(script()[1]).start()
    home = GeminiHome(tmp_path / "home", project, stub)
    home.write_settings()
    yield home
    home.stop()
    stub.stop()


def session(gemini: GeminiHome, name: str) -> list[Request]:
    """The scripted session in a fresh TUI; the model requests it made (the compression's own calls aside)."""
    (gemini.project / "big.py").write_text(big_file())
    gemini.stub.script = script()[1]
    gemini.stub.requests.clear()
    gemini.name = name
    gemini.start()
    gemini.turn("Read lines 100 to 120 of big.py", 2, "Read it.")
    lines = big_file().splitlines(keepends=True)
    lines[100] = CHANGED + "\n"  # line 101, in the region read: "return 33" before
    (gemini.project / "big.py").write_text("".join(lines))
    gemini.turn("What does step_33 return now", 2, "Answer 4.")
    gemini.turn("And step_34", 1, "Answer 5.")
    gemini.stop()
    assert not gemini.stub.refused, gemini.stub.refused

    assert sum(1 for r in gemini.stub.requests if is_compression(r)) == 2  # the summary and its verification
    return gemini.stub.model_requests()


def texts(request: Request) -> str:
    return json.dumps(request["body"]["contents"])


def without_ids(content: dict[str, Any]) -> dict[str, Any]:
    """A content with the CLI's generated call ids left out (they hold the time)."""
    parts = []
    for part in content["parts"]:
        kind = next(iter(k for k in part if k in ("functionCall", "functionResponse")), None)
        parts.append({**part, kind: {k: v for k, v in part[kind].items() if k != "id"}} if kind else part)
    return {**content, "parts": parts}


PROJECT_SETTINGS_LISTED = ("├───small.py\n└───.gemini/\n    └───settings.json\n", "└───small.py\n")
"""The session context lists the project's files: with the hook in the project, its .gemini/settings.json too."""


def same_but_ours(hooked: list[Request], bare: list[Request], listed: tuple[str, str] = ("", "")) -> None:
    """Nothing of ours before the compression; after it, on every request, our block after the summary with the
    region as it is on disk now, and everything else as the bare run sent it (``listed``: what the session
    context lists beside, replaced by what the bare run listed)."""
    assert len(hooked) == len(bare) == 5
    for request in hooked[:2]:  # before the compression: nothing of ours
        assert OURS not in texts(request) and HEADER not in texts(request)
    for n, (ours, theirs) in enumerate(zip(hooked[2:], bare[2:], strict=True), start=3):
        first, *rest = ours["body"]["contents"]
        bare_first, *bare_rest = theirs["body"]["contents"]
        assert SUMMARY in json.dumps(bare_first) and OURS not in texts(theirs)
        # the summary's content: its text parts as one (what BeforeModel answers make of a content), ours after
        (part,) = first["parts"]
        text = part["text"].replace(*listed) if listed[0] else part["text"]
        joined = "".join(p["text"] for p in bare_first["parts"])
        assert first["role"] == bare_first["role"] == "user"
        assert text.startswith(joined + "\n\n" + OURS), f"request {n}"
        block = text[len(joined) :]
        assert CHANGED in block, f"request {n}: the region as it is on disk now"
        assert "return 33\n" not in block
        # every other content as the bare run sent it: count, order, roles, tool calls and responses
        assert [without_ids(c) for c in rest] == [without_ids(c) for c in bare_rest], f"request {n}"
        for key in ("systemInstruction", "tools", "generationConfig"):
            assert ours["body"].get(key) == theirs["body"].get(key), f"request {n}: {key}"
    assert any("functionResponse" in p for c in hooked[3]["body"]["contents"] for p in c["parts"])


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
