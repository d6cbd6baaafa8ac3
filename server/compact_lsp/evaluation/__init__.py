"""Real-session evaluation: ``compact-lsp eval PATH... [--out DIR]``.

Replays Claude Code sessions through the engine (see ``replay``) and reports, per rehydration ranker, how
often the agent went back for a file that rehydration had left out, and what microcompaction saved and cost.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from .config import EvalConfig
from .replay import replay_session
from .report import EvalReport, plot, render_markdown, session_files

log = logging.getLogger(__name__)


def evaluate(paths: Sequence[str | Path], config: EvalConfig | None = None) -> EvalReport:
    """Replay every session (and its sub-agents) under ``paths``; sessions that fail to import are listed."""
    from compact_lsp.engine.claude_code import import_claude_code
    from compact_lsp.engine.tokens import TiktokenCounter

    config = config or EvalConfig()
    counter = TiktokenCounter()
    report = EvalReport(config)
    for path in session_files([str(p) for p in paths]):
        try:
            imported = import_claude_code(path)
        except (OSError, ValueError) as exc:
            report.failures.append(f"{path}: {exc}")
            continue
        for session in [imported, *imported.subagents]:
            if sum(1 for m in session.session.messages if m["role"] == "assistant") < 2:
                continue
            report.sessions.append(replay_session(session, config, counter, cwd=session.cwd or imported.cwd))
    return report


def eval_command(paths: list[str], out: str | None) -> int:
    """The CLI entry: print the markdown report; with ``out``, also write evaluation.md/.json/.png there."""
    report = evaluate(paths)
    if not report.sessions:
        sys.stderr.write("compact-lsp eval: no session with at least two assistant turns under the given paths\n")
        return 2
    text = render_markdown(report)
    sys.stdout.write(text)
    if out is not None:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        (target / "evaluation.md").write_text(text, encoding="utf-8")
        (target / "evaluation.json").write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        if plot(report, target / "evaluation.png"):
            sys.stderr.write(f"wrote {target / 'evaluation.png'}\n")
    return 0
