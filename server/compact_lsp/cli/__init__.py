"""The command line: ``main`` (cli/main.py) is the one dispatch table, the console script's entry point."""

from compact_lsp.cli.main import main

__all__ = ["main"]
