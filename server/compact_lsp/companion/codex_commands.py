"""``compact-lsp codex hook | install-hook | uninstall-hook``: the companion for Codex CLI users.

``hook`` is what Codex runs; it must never break Codex: whatever happens it exits 0, prints either one JSON object
or nothing on stdout, and says why it printed nothing on stderr and in its log file (``hook_log_path()``, 0600).
A deadline bounds it however big the rollout.
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import signal
import sys
import time
from pathlib import Path
from typing import IO, Any

from platformdirs import user_log_path

from compact_lsp.companion.codex_settings import ConfigFileError, config_path, install_hook, uninstall_hook

log = logging.getLogger(__name__)

MAX_INPUT_BYTES = 1 << 20
HOOK_DEADLINE_SECONDS = 20.0


def add_parser(sub: Any) -> None:
    cx = sub.add_parser("codex", help="companion for Codex CLI: its compaction hook")
    actions = cx.add_subparsers(dest="action", required=True)
    actions.add_parser("hook", help="run as Codex's SessionStart hook (reads its JSON on stdin)")
    for name, verb in (("install-hook", "merge the hook into"), ("uninstall-hook", "remove the hook from")):
        p = actions.add_parser(name, help=f"{verb} Codex's config.toml")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--project", action="store_const", dest="scope", const="project",
                           help="this project's .codex/config.toml (default; read in trusted projects)")  # fmt: skip
        scope.add_argument("--user", action="store_const", dest="scope", const="user",
                           help="$CODEX_HOME/config.toml (~/.codex/config.toml)")  # fmt: skip
        p.add_argument("--dir", default=".", help="the project directory (default: the current one)")


def main(argv: list[str]) -> int:
    """``compact-lsp codex ...`` without the other subcommands' imports."""
    parser = argparse.ArgumentParser(prog="compact-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return codex_command(parser.parse_args(argv))


def codex_command(ns: argparse.Namespace, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    if ns.action == "hook":
        return run_hook(stdin or sys.stdin.buffer, stdout or sys.stdout)
    path = config_path(ns.scope or "project", os.path.abspath(ns.dir))
    try:
        change = install_hook(path) if ns.action == "install-hook" else uninstall_hook(path)
    except (ConfigFileError, OSError) as exc:
        sys.stderr.write(f"compact-lsp codex {ns.action}: {exc}\n")
        return 1
    out = stdout or sys.stdout
    out.write(change.message + (f" (backup: {change.backup})" if change.backup else "") + "\n")
    return 0


def hook_log_path() -> Path:
    return user_log_path("compact-lsp") / "codex-hook.log"


def _log_to_file() -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        path = hook_log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        handlers.append(logging.handlers.RotatingFileHandler(path, maxBytes=1 << 20, backupCount=1))
    except OSError:
        pass
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s codex hook: %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class _Deadline(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Deadline(f"no answer within {HOOK_DEADLINE_SECONDS:.0f} s")


def run_hook(stdin: IO[bytes], stdout: IO[str]) -> int:
    """Codex's hook: print the additional context or nothing; always exit 0."""
    _log_to_file()
    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HOOK_DEADLINE_SECONDS)
    try:
        from compact_lsp.companion.codex_hook import NotForUs, context_for, hook_output, parse_hook_input
        from compact_lsp.engine.conversation.tokens import TiktokenCounter

        raw = stdin.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            raise ValueError(f"hook input over {MAX_INPUT_BYTES} bytes")
        try:
            fields = parse_hook_input(raw)
        except NotForUs as exc:
            log.debug("nothing to do: %s", exc)
            return 0
        context, figures = context_for(fields, TiktokenCounter())
        signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        if context is None:
            log.info("session %s: nothing to add (%.2f s; %s)", fields["session_id"], elapsed, figures)
            return 0
        stdout.write(hook_output(context) + "\n")
        stdout.flush()
        log.info("session %s: added %s (%.2f s)", fields["session_id"], figures, elapsed)
    except BaseException as exc:  # never break Codex: nothing printed, exit 0, the reason logged
        log.warning("printed nothing: %s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, ValueError))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return 0
