"""Command line: the language server (default) and offline subcommands.

``compact-lsp`` / ``compact-lsp --stdio`` speak LSP on stdio; ``--tcp HOST:PORT`` listens for one client.
``compact-lsp inspect SESSION.jsonl`` prints context usage and what microcompaction would clear; ``--help`` lists
every subcommand (``serve``, the default, and the offline ones).
Only the offline subcommands print to stdout; the server writes JSON-RPC there and nothing else.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import re
import sys
from collections.abc import Sequence

from compact_lsp import __version__
from compact_lsp.agents.registered import agent_named

SUBCOMMANDS = ("inspect", "import", "eval", "compact", "doctor")
"""The offline subcommands (cli/offline.py); each registered agent's name is one too (cli/agents.py)."""


def _server_parser(epilog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compact-lsp",
        usage="compact-lsp [serve] [--stdio | --tcp HOST:PORT] [-v] [--log-file PATH]\n"
        "       compact-lsp SUBCOMMAND ... (see below; compact-lsp SUBCOMMAND --help for its options)",
        description="compact-lsp language server: manages the context window of an in-editor AI coding agent",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"compact-lsp {__version__}")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="speak LSP on stdio (the default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP for one client (debugging)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--log-file", help="also write logs to this file (created 0600)")
    parser.add_argument(
        "--log-bodies",
        action="store_true",
        help="with -vv, also log JSON-RPC message bodies (file contents, conversation text); off by default",
    )
    return parser


_SECRETS = re.compile(
    r"sk-ant-[A-Za-z0-9_-]{8,}"  # Anthropic keys, wherever a library logs them
    r"""|(?<=apiKey['"]: ['"])[^'"]+|(?<=api_key['"]: ['"])[^'"]+"""  # the apiKey setting in logged params
)


class SecretFilter(logging.Filter):
    """Masks API keys in every record: pygls logs the initialize params (with ``apiKey``) at INFO."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        masked = _SECRETS.sub("[redacted]", text)
        key = os.environ.get("ANTHROPIC_API_KEY")
        if key:
            masked = masked.replace(key, "[redacted]")
        if masked != text:
            record.msg, record.args = masked, None
        return True


_BODY_RECORDS = (
    "Sending data: ",
    "Received result for message",
    "Received error response to message",
    "Sending notification: ",
    "Sending request with id",
    "Client response for",
    "Language server initialized",
    "Workspace folders changed: ",
)
"""pygls' log records that carry a whole message (some at INFO): file contents and conversation text."""


class BodyFilter(logging.Filter):
    """Message bodies never reach the log unless ``--log-bodies`` is given, and then only at DEBUG: pygls logs
    every response it sends at INFO, and responses carry file contents."""

    def __init__(self, bodies: bool) -> None:
        super().__init__()
        self.bodies = bodies

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "body_filtered", False):  # another handler's filter already did it
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        ours = getattr(record, "message_body", False)  # compact_lsp's own body records say so
        if not ours and not (
            record.name.startswith("pygls") and isinstance(record.msg, str) and record.msg.startswith(_BODY_RECORDS)
        ):
            return True
        record.body_filtered = True
        if not self.bodies:
            args = record.args if isinstance(record.args, tuple) else ()
            size = sum(len(a) if isinstance(a, (str, bytes)) else 0 for a in args)
            head = record.msg.split("%", 1)[0].rstrip(": ")
            record.msg, record.args = f"{head}: [{size} characters; bodies are logged only with --log-bodies]", None
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)


def _private_file(path: str) -> str:
    """Create (or narrow) the log file as 0600 before logging opens it: logs hold paths and errors."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def configure_logging(verbose: int, log_file: str | None, *, bodies: bool = False) -> None:
    """Logs go to stderr (never stdout: it carries JSON-RPC) and optionally to a file; API keys masked; message
    bodies only with ``bodies`` at DEBUG."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(_private_file(log_file), encoding="utf-8"))
    for handler in handlers:
        handler.addFilter(BodyFilter(bodies and level <= logging.DEBUG))
        handler.addFilter(SecretFilter())
    logging.basicConfig(level=level, handlers=handlers, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if bodies and level <= logging.DEBUG:
        logging.getLogger(__name__).warning("--log-bodies: message bodies (file contents, conversation) are logged")


def subcommands_help() -> str:
    """Every subcommand with its one-line help: ``serve`` (the default) and the offline ones, read from their
    parser so a new one is listed without another edit here."""
    from compact_lsp.cli.offline import _parser as offline_parser

    lines = [("serve", "run the language server (the default when no subcommand is given)")]
    for action in offline_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            lines += [(choice.dest, choice.help or "") for choice in action._choices_actions]
    width = max(len(name) for name, _ in lines) + 2
    return "subcommands:\n" + "\n".join(f"  {name.ljust(width)}{text}" for name, text in lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[1:2] == ["hook"]:  # the agents' hooks start fresh on every compaction: no parser, no server imports
        from compact_lsp.agents.hook_process import hook_main

        code = hook_main(args)
        if code is not None:
            return code
    agent = agent_named(args[0]) if args else None
    if agent is not None:
        from compact_lsp.cli.agents import main as agent_main

        return agent_main(args, agent)
    if args and args[0] in SUBCOMMANDS:
        from compact_lsp.cli.offline import main as offline_main

        return offline_main(args)
    if args and args[0] == "serve":
        args = args[1:]
    wants_help = any(a in ("-h", "--help") for a in args)
    ns = _server_parser(subcommands_help() if wants_help else None).parse_args(args)
    configure_logging(ns.verbose, ns.log_file, bodies=ns.log_bodies)
    from compact_lsp.lsp.app import run

    code = run(tcp=ns.tcp)
    _exit_now(code)
    return code  # not reached


def _exit_now(code: int) -> None:
    """End the process once the client is gone, without waiting for worker threads: one stuck on a file that
    never answers would otherwise keep a server whose client closed stdin alive for good (interpreter exit joins
    every pool thread). Sessions lose nothing: every record was fsynced when it was written."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
