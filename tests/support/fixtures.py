"""Pytest fixtures from ``tests.support``; register with ``pytest_plugins = ["tests.support.fixtures"]``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .messages_api_stub import MessagesApiStub


@pytest.fixture
def messages_api() -> Iterator[MessagesApiStub]:
    """A started loopback Messages API stub; script it with ``push(...)``, inspect ``requests``."""
    with MessagesApiStub() as stub:
        yield stub
