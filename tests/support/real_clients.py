"""The real clients the tiers drive, one installed copy of each for every tier: where it is, or why it is not.

``.ci/setup-tests`` installs them, pinned, once per machine (``~/.cache/compact-lsp``) and links them into the
clone: Claude Code into ``tests/claude_code_cli/.work/cc``, the Codex CLI into ``tests/codex/.work``, Qwen Code into
``tests/qwen_code/.work``, code-server
into ``editors/vscode/e2e/.work``. Any tier asks for one with the session-scoped fixtures ``claude_code_binary``
and ``codex_binary`` (tests/conftest.py), which skip the test with the reason when it is not installed.
"""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
CLAUDE_CODE_WORK = TESTS / "claude_code_cli" / ".work"
CLAUDE_CODE_VERSION = (TESTS / "claude_code_cli" / "VERSION").read_text(encoding="utf-8").strip()
CLAUDE_CODE = CLAUDE_CODE_WORK / "cc" / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
CODEX = TESTS / "codex" / ".work" / "node_modules" / ".bin" / "codex"
QWEN_CODE = TESTS / "qwen_code" / ".work" / "node_modules" / ".bin" / "qwen"
GEMINI_CLI = TESTS / "gemini_cli" / ".work" / "node_modules" / ".bin" / "gemini"


def claude_code() -> tuple[Path | None, str]:
    """The pinned Claude Code CLI, or None and why it is not there."""
    if CLAUDE_CODE.is_file() and os.access(CLAUDE_CODE, os.X_OK):
        return CLAUDE_CODE, ""
    reason_file = CLAUDE_CODE_WORK / "setup-failed.txt"
    if reason_file.is_file():
        return None, reason_file.read_text(encoding="utf-8").strip()
    return None, f"Claude Code {CLAUDE_CODE_VERSION} is not installed in {CLAUDE_CODE_WORK} (run bash .ci/setup-tests)"


def codex() -> tuple[Path | None, str]:
    """The pinned Codex CLI, or None and why it is not there."""
    if CODEX.exists():
        return CODEX, ""
    return None, f"the Codex CLI is not installed ({CODEX}); run bash .ci/setup-tests"


def qwen_code() -> tuple[Path | None, str]:
    """The pinned Qwen Code CLI, or None and why it is not there."""
    if QWEN_CODE.exists():
        return QWEN_CODE, ""
    reason_file = TESTS / "qwen_code" / ".work-failed.txt"
    if reason_file.is_file():
        return None, reason_file.read_text(encoding="utf-8").strip()
    return None, f"the Qwen Code CLI is not installed ({QWEN_CODE}); run bash .ci/setup-tests"


def gemini_cli() -> tuple[Path | None, str]:
    """The pinned Gemini CLI, or None and why it is not there."""
    if GEMINI_CLI.exists():
        return GEMINI_CLI, ""
    reason_file = TESTS / "gemini_cli" / ".work-failed.txt"
    if reason_file.is_file():
        return None, reason_file.read_text(encoding="utf-8").strip()
    return None, f"the Gemini CLI is not installed ({GEMINI_CLI}); run bash .ci/setup-tests"
