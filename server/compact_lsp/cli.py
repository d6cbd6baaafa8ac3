"""Command line: the language server (default) and offline subcommands.

``compact-lsp`` / ``compact-lsp --stdio`` speak LSP on stdio; ``--tcp HOST:PORT`` listens for one client.
``compact-lsp inspect SESSION.jsonl`` prints context usage and what microcompaction would clear.
Only the offline subcommands print to stdout; the server writes JSON-RPC there and nothing else.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Sequence

from compact_lsp import __version__

SUBCOMMANDS = ("inspect", "import", "eval")


def _server_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="compact-lsp", description="compact-lsp language server")
    parser.add_argument("--version", action="version", version=f"compact-lsp {__version__}")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="speak LSP on stdio (the default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP for one client (debugging)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--log-file", help="also write logs to this file")
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


def configure_logging(verbose: int, log_file: str | None) -> None:
    """Logs go to stderr (never stdout: it carries JSON-RPC) and optionally to a file; API keys masked."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    for handler in handlers:
        handler.addFilter(SecretFilter())
    logging.basicConfig(level=level, handlers=handlers, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        from compact_lsp.offline import main as offline_main

        return offline_main(args)
    ns = _server_parser().parse_args(args)
    configure_logging(ns.verbose, ns.log_file)
    from compact_lsp.lsp.server import run

    return run(tcp=ns.tcp)
