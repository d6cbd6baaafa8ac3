"""Real-session evaluation: ``compact-lsp eval PATH... [--out DIR] [--json]``.

Replays Claude Code sessions through the engine (see ``replay``) and reports, per rehydration policy, how often
the agent went on to need a file that rehydration had left out (strictly: or left out the lines it needed), and
what each microcompaction policy saves and costs with prompt caching.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from compact_lsp.evaluation.config import EvalConfig, sweep_rankers
from compact_lsp.evaluation.replay import replay_session
from compact_lsp.evaluation.report import EvalReport, plot, render_markdown
from compact_lsp.evaluation.sources import session_sources
from compact_lsp.evaluation.survival import survival

log = logging.getLogger(__name__)


def evaluate(paths: Sequence[str | Path], config: EvalConfig | None = None) -> EvalReport:
    """Replay every session (its sub-agents, and orphan sub-agent logs); what cannot be replayed is listed."""
    from compact_lsp.engine.claude_code.transcript_log import import_contexts
    from compact_lsp.engine.conversation.tokens import TiktokenCounter

    config = config or EvalConfig()
    counter = TiktokenCounter()
    report = EvalReport(config)
    for source in session_sources([str(p) for p in paths]):
        try:
            # a session Claude Code compacted is replayed context by context: each is what the server held then
            contexts = import_contexts(source.path, with_subagents=source.orphan is None)
        except (OSError, ValueError) as exc:
            report.failures.append(f"{source.path}: {exc}")
            continue
        imported = contexts[-1]
        report.legacy_compactions += imported.legacy_compactions
        replayed = [(c, f"{k} of {len(contexts)}" if len(contexts) > 1 else None) for k, c in enumerate(contexts, 1)]
        for session, context in [*replayed, *((s, None) for s in imported.subagents)]:
            if sum(1 for m in session.session.messages if m["role"] == "assistant") < 2:
                if source.orphan is not None:
                    report.skipped.append(f"{source.path.name}: {source.orphan}; fewer than 2 assistant turns")
                continue
            result = replay_session(session, config, counter, cwd=session.cwd or imported.cwd)
            result.orphan = source.orphan
            result.context = context
            result.inline = session.inline
            report.sessions.append(result)
        if source.orphan is None and config.survival:
            repeated = survival(imported, counter)
            if repeated is not None:
                report.survival.append(repeated)
    return report


def eval_command(paths: list[str], out: str | None, as_json: bool = False, sweep: bool = False) -> int:
    """The CLI entry: print the markdown report (``--json``: the figures as JSON); with ``out``, also write
    evaluation.md/.json/.png there. ``sweep``: the big-file policies of ``sweep_rankers`` instead of the usual ones
    (no microcompaction, no repeated compactions)."""
    config = EvalConfig(rankers=sweep_rankers(), micro=(), survival=False) if sweep else None
    report = evaluate(paths, config)
    if not report.sessions:
        sys.stderr.write("compact-lsp eval: no session with at least two assistant turns under the given paths\n")
        return 2
    text = render_markdown(report)
    data = report.to_json()
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if as_json else text)
    if out is not None:
        target = Path(out)
        target.mkdir(parents=True, exist_ok=True)
        (target / "evaluation.md").write_text(text, encoding="utf-8")
        (target / "evaluation.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        if plot(report, target / "evaluation.png"):
            sys.stderr.write(f"wrote {target / 'evaluation.png'}\n")
    return 0
