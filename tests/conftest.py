"""Fixtures shared by every test tier."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO.parent / "shared" / "corpus" / "claude-code-sessions"
FIXTURES_DIR = REPO / "tests" / "fixtures"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (stable otherwise): with ``-n`` (pytest-xdist, as .ci/test runs) a slow test that
    starts last would leave the other workers idle while it finishes."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The real Claude Code session logs (../shared/corpus/claude-code-sessions); skips only if absent."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"the Claude Code corpus is not at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR
