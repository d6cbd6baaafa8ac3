"""The real Gemini CLI tier's home: a project with ``small.py``, the strict loopback stub, the user's settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.gemini_cli.gemini_cli import GeminiHome
from tests.gemini_cli.gemini_stub import GeminiStub
from tests.gemini_cli.scripted import UNDER_THRESHOLD, script


@pytest.fixture
def gemini(tmp_path: Path) -> Iterator[GeminiHome]:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "small.py").write_text("SMALL = 'kept as the CLI sent it'\n")
    stub = GeminiStub(script(UNDER_THRESHOLD)).start()
    home = GeminiHome(tmp_path / "home", project, stub)
    home.write_settings()
    yield home
    home.stop()
    stub.stop()
