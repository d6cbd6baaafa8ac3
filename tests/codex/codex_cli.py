"""Running the real Codex CLI in tests: where it is, a config for a loopback stub, a scripted turn."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.codex.responses_stub import Reply, Request, ResponsesStub, is_compaction, message, texts
from tests.support import real_clients

CODEX = real_clients.CODEX
COMPACT_LIMIT = 50_000
needs_codex = pytest.mark.skipif(not CODEX.exists(), reason=real_clients.codex()[1])
"""For a module whose tests all drive Codex; a test can instead ask for the ``codex_binary`` fixture."""


def turn_script(
    calls: list[dict[str, Any]], on_compaction: Callable[[], None] = lambda: None
) -> Callable[[Request], Reply]:
    """The model's side of one turn: the tool calls in order (the last one reported over the compaction limit),
    the summary when Codex asks for it, then a final answer."""
    state = {"next": 0, "compacted": False}

    def script(request: Request) -> Reply:
        if is_compaction(request):
            state["compacted"] = True
            on_compaction()
            return [message("Summary: the user asked to fix the greeting; app.py and notes.md were read.")], 800
        if state["compacted"] or state["next"] >= len(calls):
            return [message("All done.")], 3_000
        call = calls[state["next"]]
        state["next"] += 1
        last = state["next"] == len(calls)
        return [call], (COMPACT_LIMIT + 40_000) if last else 4_000

    return script


def write_config(codex_home: Path, stub: ResponsesStub) -> None:
    (codex_home / "config.toml").write_text(
        f"""# the user's own settings, kept by install-hook
model = "gpt-5.5"
model_provider = "stub"
model_auto_compact_token_limit = {COMPACT_LIMIT}
approval_policy = "never"
sandbox_mode = "workspace-write"

[model_providers.stub]
name = "stub"
base_url = "{stub.base_url}"
env_key = "STUB_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[features]
plugins = false
"""
    )


def env_for(codex_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "CODEX", "ANTHROPIC", "XDG_"))}
    env.update(HOME=str(codex_home.parent), CODEX_HOME=str(codex_home), STUB_API_KEY="dummy-key")
    return env


def install(codex_home: Path, project: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "codex", "install-hook", "--user"],
        cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout


def run_codex(codex_home: Path, project: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CODEX), "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", prompt],
        cwd=project, env=env_for(codex_home), capture_output=True, text=True, timeout=150, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def developer_texts(request: Request) -> list[str]:
    return [texts(i) for i in request["input"] if i.get("type") == "message" and i.get("role") == "developer"]


def first_after_compaction(stub: ResponsesStub) -> Request:
    at = next(i for i, r in enumerate(stub.requests) if is_compaction(r))
    assert at + 1 < len(stub.requests), "Codex sent nothing after its compaction"
    return stub.requests[at + 1]
