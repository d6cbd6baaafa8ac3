"""Fixtures shared by every test tier."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support import real_clients, tier_times

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO.parent / "shared" / "corpus" / "claude-code-sessions"
FIXTURES_DIR = REPO / "tests" / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    tier_times.register(config)


HEAVY_FIRST = (
    "gemini_cli", "qwen_code", "editors", "claude_code_cli", "codex", "reliability", "e2e", "cli", "test_architecture",
)  # fmt: skip
"""Tiers whose tests each start processes (a server, Neovim, code-server, a real CLI), slowest a test first as
measured (docs/testing.md), and the architecture checks (one import graph, built once, for 18 tests)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first, then the tiers that start processes, then the rest (stable otherwise): with ``-n``
    (pytest-xdist, as .ci/test runs) the workers take the long tests first and the many quick ones fill in behind
    them, so no long test starts last and leaves the other workers idle while it finishes."""

    def order(item: pytest.Item) -> tuple[bool, int]:
        tier = tier_times.tier_of(item.nodeid)
        heavy = HEAVY_FIRST.index(tier) if tier in HEAVY_FIRST else len(HEAVY_FIRST)
        return item.get_closest_marker("slow") is None, heavy

    items.sort(key=order)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The real Claude Code session logs (../shared/corpus/claude-code-sessions); skips only if absent."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"the Claude Code corpus is not at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR


@pytest.fixture(scope="session")
def claude_code_binary() -> Path:
    """The pinned Claude Code CLI (tests/support/real_clients.py), for any tier; skips with the reason if absent."""
    binary, reason = real_clients.claude_code()
    if binary is None:
        pytest.skip(reason)
    return binary


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    """The pinned Codex CLI (tests/support/real_clients.py), for any tier; skips with the reason if absent."""
    binary, reason = real_clients.codex()
    if binary is None:
        pytest.skip(reason)
    return binary
