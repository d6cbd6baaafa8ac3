"""Where the suite's time goes, tier by tier (a tier: a folder under tests/, or a file directly in it).

With ``COMPACT_TIER_TIMES=PATH`` set, the run (the xdist controller, or the one process without ``-n``) writes
to PATH, as JSON, every test's outcome and time (set-up + call + tear-down, as the worker measured it) and when
it started and stopped; ``.ci/times.py`` turns that into the table ``.ci/test`` prints at its end.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

ENV = "COMPACT_TIER_TIMES"


def tier_of(nodeid: str) -> str:
    """``tests/engine/files/test_x.py::t`` -> ``engine``; ``tests/test_architecture.py::t`` -> ``test_architecture``."""
    parts = nodeid.split("::", 1)[0].split("/")
    if len(parts) >= 3 and parts[0] == "tests":
        return parts[1]
    return parts[-1].removesuffix(".py")


class TierTimes:
    """Collects the reports the controller receives from its workers and writes them at the session's end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tests: dict[str, dict[str, Any]] = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        test = self.tests.setdefault(
            report.nodeid, {"tier": tier_of(report.nodeid), "outcome": "passed", "seconds": 0.0, "start": report.start}
        )
        test["seconds"] += report.duration
        test["start"] = min(test["start"], report.start)
        test["stop"] = report.stop
        if report.outcome != "passed" and test["outcome"] == "passed":
            # a skip is reported by its set-up; a failure in any phase is the test's outcome
            test["outcome"] = report.outcome

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.path.write_text(json.dumps({"tests": self.tests}, indent=0) + "\n", encoding="utf-8")


def register(config: pytest.Config) -> None:
    """Called from tests/conftest.py's ``pytest_configure``: only where reports arrive (not in an xdist worker)."""
    path = os.environ.get(ENV)
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(TierTimes(Path(path)), "compact-tier-times")
