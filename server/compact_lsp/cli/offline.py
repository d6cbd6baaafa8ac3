"""Offline subcommands: look at a real session without an editor.

``compact-lsp inspect SESSION.jsonl`` reads an agent's log (what its model holds now, as the agent whose log it is
reads it: agents/agent_log.py) and prints its context usage by kind and what microcompaction would clear (and
protect) if forced now. ``--json`` prints the same as one JSON object.
``compact-lsp compact SESSION.jsonl [--turn N ...]`` previews full compaction (evaluation/compact_preview.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compact_lsp.engine.conversation.tokens import TiktokenCounter, TokenizerUnavailable
from compact_lsp.engine.conversation.usage import ContextUsage, message_kind_tokens
from compact_lsp.engine.session.context_session import ContextSession
from compact_lsp.engine.settings import EngineSettings
from compact_lsp.lsp.protocol.answers import usage_answer

if TYPE_CHECKING:
    from compact_lsp.engine.conversation.messages import Message


def _logs_read() -> str:
    """The logs ``inspect`` and ``import`` read, for ``--help``: every registered agent's."""
    from compact_lsp.agents.registered import AGENTS

    owners = [agent.owner for agent in AGENTS]
    return f"session logs of {', '.join(owners[:-1])} or {owners[-1]}" if len(owners) > 1 else f"{owners[0]} logs"


def _parser() -> argparse.ArgumentParser:
    logs = _logs_read()
    parser = argparse.ArgumentParser(prog="compact-lsp", description="compact-lsp offline tools")
    sub = parser.add_subparsers(dest="command", required=True)
    inspect = sub.add_parser("inspect", help="context usage of an agent's session and what would be cleared")
    inspect.add_argument("sessions", nargs="+", help=logs)
    inspect.add_argument("--context-window", type=int, default=None,
                         help="default: the window of the model the transcript names, else 200,000")  # fmt: skip
    inspect.add_argument("--keep-recent", type=int, default=5)
    inspect.add_argument("--json", action="store_true", help="print JSON instead of a report")
    imp = sub.add_parser("import", help="import an agent's session into the session store")
    imp.add_argument("sessions", nargs="+", help=logs)
    imp.add_argument("--workspace", default=".", help="the workspace the sessions belong to")
    imp.add_argument("--session-dir", default=None, help="the session store (default: the user state dir)")
    ev = sub.add_parser("eval", help="replay real sessions: what compaction keeps and what gets re-read")
    ev.add_argument("paths", nargs="+", help="session files or project folders")
    ev.add_argument("--out", default=None, help="write the report (markdown), its JSON and a plot here")
    ev.add_argument("--json", action="store_true", help="print the figures as JSON instead of the report")
    ev.add_argument(
        "--sweep", action="store_true", help="compare gap sizes, outlines and per-file caps for big files instead"
    )
    comp = sub.add_parser("compact", help="what full compaction (offline summary) leaves at assistant turn N")
    comp.add_argument("session", help="a Claude Code session .jsonl file")
    comp.add_argument("--turn", type=int, action="append", default=[],
                      help="compact at this assistant turn (as inspect counts them; default the end); repeat to "
                      "compact again, on the compacted conversation plus what followed")  # fmt: skip
    comp.add_argument("--workspace", default=None, help="the session's folder (default: the log's cwd when it is "
                      "on this machine; else the files are rebuilt from the log)")  # fmt: skip
    comp.add_argument(
        "--json",
        action="store_true",
        help="print {messages, rehydrated, tokensBefore, tokensAfter} of the last compaction",
    )
    doctor = sub.add_parser("doctor", help="check that every compaction hook installed here still starts")
    doctor.add_argument("--dir", default=".", help="the project directory (default: the current one)")
    from compact_lsp.cli.agents import add_parsers

    add_parsers(sub)  # listed here for --help; cli.main runs them without this module's imports
    return parser


def main(argv: Sequence[str]) -> int:
    ns = _parser().parse_args(list(argv))
    try:
        if ns.command == "inspect":
            return _inspect(ns)
        if ns.command == "import":
            from compact_lsp.agents.importing import import_sessions_command

            return import_sessions_command(ns.sessions, workspace=ns.workspace, session_dir=ns.session_dir)
        if ns.command == "eval":
            from compact_lsp.evaluation import eval_command

            return eval_command(ns.paths, out=ns.out, as_json=ns.json, sweep=ns.sweep)
        if ns.command == "compact":
            return _compact(ns)
        if ns.command == "doctor":
            from compact_lsp.agents.doctor import doctor_command

            return doctor_command(ns.dir)
    except (FileNotFoundError, ValueError, TokenizerUnavailable) as exc:
        sys.stderr.write(f"compact-lsp {ns.command}: {exc}\n")
        return 2
    return 2


def inspect_session(
    path: str, settings: EngineSettings, counter: TiktokenCounter, *, window_given: bool = True
) -> dict[str, Any]:
    """Usage and the forced-microcompaction preview of one agent's log, as a JSON-able dict; without
    ``window_given``, the window of the model the log names."""
    from compact_lsp.agents.registered import log_owner
    from compact_lsp.engine.conversation.usage import reported_input_tokens

    log = log_owner(path).read_log(path)
    if not window_given and log.window:
        settings = dataclasses.replace(settings, context_window=log.window)
    session = ContextSession(log.session_id, settings=settings, counter=counter, title=log.title,
                             workspace_root=log.cwd or None)  # fmt: skip
    session.append(log.messages)
    usage = _with_attachments(session.usage(), session.messages, log.attachment_texts, counter)
    reported = reported_input_tokens(log.usage)
    if reported:
        usage = dataclasses.replace(usage, reported=reported)
    return {
        "path": path, **({"agent": log.agent} if log.agent else {}), "sessionId": session.id, "title": log.title,
        "messages": len(session.messages), **log.facts,
        "usage": usage_answer(usage),
        "microcompaction": _microcompaction_preview(session.plan_microcompaction("forced")),
    }  # fmt: skip


def _microcompaction_preview(plan: Any) -> dict[str, Any] | None:
    """What a forced microcompaction would clear and protect, or None when it would clear nothing."""
    if plan is None:
        return None
    return {
        "tokensBefore": plan.tokens_before,
        "tokensAfter": plan.tokens_after,
        "tokensSaved": plan.tokens_saved,
        "cleared": [
            {"toolUseId": c.tool_use_id, "tool": c.tool, "paths": list(c.paths), "tokens": c.tokens} for c in plan.clear
        ],
        "protected": [{"toolUseId": p.tool_use_id, "paths": list(p.paths)} for p in plan.protected],
        "keptRecent": list(plan.kept_recent),
    }


def _with_attachments(
    usage: ContextUsage, messages: list[Message], attachment_texts: frozenset[str], counter: TiktokenCounter
) -> ContextUsage:
    """The usage with the text Claude Code attached (its ``attachment`` records) counted as attachments."""
    if not attachment_texts:
        return usage
    by_kind = dict.fromkeys(usage.by_kind, 0)
    for message in messages:
        for kind, tokens in message_kind_tokens(counter, message, attachment_texts.__contains__).items():
            by_kind[kind] = by_kind.get(kind, 0) + tokens
    by_kind["system"] = usage.by_kind.get("system", 0)
    by_kind["memory"] = usage.by_kind.get("memory", 0)
    return dataclasses.replace(usage, by_kind=by_kind)


def _inspect(ns: argparse.Namespace) -> int:
    from compact_lsp.engine.settings import MicrocompactSettings

    settings = EngineSettings(
        context_window=ns.context_window or 200_000, microcompact=MicrocompactSettings(keep_recent=ns.keep_recent)
    )
    counter = TiktokenCounter()
    given = ns.context_window is not None
    reports = [inspect_session(p, settings, counter, window_given=given) for p in ns.sessions]
    if ns.json:
        sys.stdout.write(json.dumps(reports if len(reports) > 1 else reports[0], indent=2) + "\n")
    else:
        for report in reports:
            sys.stdout.write(format_report(report))
    return 0


def _compact(ns: argparse.Namespace) -> int:
    from compact_lsp.evaluation.compact_preview import format_steps, preview_compactions

    steps = preview_compactions(ns.session, ns.turn, TiktokenCounter(), workspace=ns.workspace)
    if ns.json:
        last = steps[-1].to_json()
        last["compactions"] = [{k: v for k, v in s.to_json().items() if k not in ("messages", "rehydrated")}
                               for s in steps]  # fmt: skip
        sys.stdout.write(json.dumps(last, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_steps(steps))
    return 0


def format_report(report: dict[str, Any]) -> str:
    usage = report["usage"]
    lines = [
        f"{Path(report['path']).name}  {report['title'][:70]}",
        f"  messages: {report['messages']}   assistant turns: {report['assistantTurns']}\n"
        f"  tokens: {usage['total']:,} / {usage['contextWindow']:,} "
        f"({usage['percent']}%)   auto-compact at {usage['autoCompactThreshold']:,}   level: {usage['level']}",
        "  by kind: " + ", ".join(f"{k} {v:,}" for k, v in usage["byKind"].items() if v),
    ]
    if report.get("inlineSubagents") or report.get("legacyCompactions"):
        lines.append(
            f"  Claude Code 1.0.x shapes: {report['inlineSubagents']} sub-agent(s) inline in the log (imported as "
            f"their own conversations), {report['legacyCompactions']} compaction(s) without a boundary (read as one)"
        )
    if report.get("agent") and report.get("compaction"):
        lines.append(f"  the agent's compactions: {report['compaction']['compactions']} (the window since the last)")
    if report["problems"]:
        lines.append(f"  import problems: {len(report['problems'])} (first: {report['problems'][0]})")
    if report["repairs"]:
        lines.append(f"  repaired: {'; '.join(report['repairs'][:3])}")
    micro = report["microcompaction"]
    if micro is None:
        lines.append("  microcompaction (forced): nothing to clear")
    else:
        lines.append(
            f"  microcompaction (forced): would clear {len(micro['cleared'])} results, "
            f"{micro['tokensSaved']:,} tokens ({micro['tokensBefore']:,} -> {micro['tokensAfter']:,}); "
            f"keeps {len(micro['keptRecent'])} recent, protects {len(micro['protected'])}"
        )
        for item in sorted(micro["cleared"], key=lambda c: -c["tokens"])[:8]:
            where = f" {item['paths'][0]}" if item["paths"] else ""
            lines.append(f"    - {item['tool']}{where}: {item['tokens']:,} tokens")
    return "\n".join(lines) + "\n\n"
