"""``compact-lsp claude-code hook | install-hook | uninstall-hook``: the companion for Claude Code users.

``hook`` is what Claude Code runs; it must never break Claude Code: whatever happens it exits 0, prints either
one JSON object or nothing on stdout, and says why it printed nothing on stderr and in its log file
(``hook_log_path()``, created 0600). A deadline (``HOOK_DEADLINE_SECONDS``) bounds it however big the transcript.
``run_hook`` serves Codex's hook too (``companion/codex_commands.py``): the same input, output and rules.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import IO, Any

from compact_lsp.companion.hook import NotForUs, hook_output, parse_hook_input
from compact_lsp.engine.compaction.hook_policy import DEFAULT_BUDGET

log = logging.getLogger(__name__)

MAX_INPUT_BYTES = 1 << 20
HOOK_DEADLINE_SECONDS = 20.0
"""Far below Claude Code's own hook timeout (we install 30 s); a typical answer takes well under a second."""


def add_parser(sub: Any) -> None:
    cc = sub.add_parser("claude-code", help="companion for Claude Code: its compaction hook")
    actions = cc.add_subparsers(dest="action", required=True)
    hook = actions.add_parser("hook", help="run as Claude Code's SessionStart hook (reads its JSON on stdin)")
    hook.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="characters for files and slices")
    hook.add_argument("--check", action="store_true", help="only say that the hook can start, and exit")
    for name, verb in (("install-hook", "merge the hook into"), ("uninstall-hook", "remove the hook from")):
        p = actions.add_parser(name, help=f"{verb} Claude Code's settings")
        scope = p.add_mutually_exclusive_group()
        scope.add_argument("--project", action="store_const", dest="scope", const="project",
                           help="this project's .claude/settings.local.json (the default)")  # fmt: skip
        scope.add_argument("--user", action="store_const", dest="scope", const="user", help="~/.claude/settings.json")
        p.add_argument("--dir", default=".", help="the project directory (default: the current one)")


def main(argv: list[str]) -> int:
    """``compact-lsp claude-code ...`` without the other subcommands' imports: the hook starts fast."""
    parser = argparse.ArgumentParser(prog="compact-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return claude_code_command(parser.parse_args(argv))


def claude_code_command(ns: argparse.Namespace, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    if ns.action == "hook" and ns.check:
        from compact_lsp.companion.hook_launcher import ready

        (stdout or sys.stdout).write(ready("claude-code") + "\n")
        return 0
    if ns.action == "hook":
        return run_hook(stdin or sys.stdin.buffer, stdout or sys.stdout, budget=ns.budget)
    from compact_lsp.companion.hook_settings import SettingsFileError, install_hook, settings_path, uninstall_hook

    path = settings_path(ns.scope or "project", os.path.abspath(ns.dir))
    try:
        project = os.path.abspath(ns.dir) if (ns.scope or "project") == "project" else None
        change = (install_hook if ns.action == "install-hook" else uninstall_hook)(path, project_dir=project)
    except (SettingsFileError, OSError) as exc:
        sys.stderr.write(f"compact-lsp claude-code {ns.action}: {exc}\n")
        return 1
    out = stdout or sys.stdout
    out.write(change.message + (f" (backup: {change.backup})" if change.backup else "") + "\n")
    return 0


def hook_log_path(agent: str = "claude-code") -> Path:
    """platformdirs' user log directory; on Linux worked out here (``$XDG_STATE_HOME`` or ``~/.local/state``,
    then ``compact-lsp/log``), so the hook does not pay for importing platformdirs on every compaction."""
    if sys.platform.startswith("linux"):
        state = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return Path(state) / "compact-lsp" / "log" / f"{agent}-hook.log"
    from platformdirs import user_log_path

    return user_log_path("compact-lsp") / f"{agent}-hook.log"


MAX_LOG_BYTES = 1 << 20


def _log_to_file(agent: str) -> None:
    """Append to the hook's own log (0600, rotated at 1 MB) and stderr; a log we cannot open is not an error."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        path = hook_log_path(agent)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size > MAX_LOG_BYTES:  # rotated at 1 MB, one old file kept
            os.replace(path, path.with_name(path.name + ".1"))
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        handlers.append(logging.FileHandler(path))
    except OSError:
        pass
    for handler in handlers:
        handler.setFormatter(logging.Formatter(f"%(asctime)s %(levelname)s {agent} hook: %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class _Deadline(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Deadline(f"no answer within {HOOK_DEADLINE_SECONDS:.0f} s")


def run_hook(stdin: IO[bytes], stdout: IO[str], *, budget: int = DEFAULT_BUDGET, agent: str = "claude-code") -> int:
    """Claude Code's hook (or Codex's, ``agent="codex"``): print the additional context or nothing; always exit 0."""
    if agent == "codex":
        from compact_lsp.companion.codex_hook import context_for
    else:
        from compact_lsp.companion.hook import context_for
    _log_to_file(agent)
    started = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HOOK_DEADLINE_SECONDS)
    try:
        raw = stdin.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            raise ValueError(f"hook input over {MAX_INPUT_BYTES} bytes")
        inp = parse_hook_input(raw)
        context, figures = context_for(inp, budget=budget)
        signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        if context is None:
            log.info("session %s: nothing to add (%.2f s; %s)", inp.session_id, elapsed, figures)
            return 0
        stdout.write(hook_output(context) + "\n")
        stdout.flush()
        log.info("session %s: added %s (%.2f s)", inp.session_id, figures, elapsed)
    except NotForUs as exc:
        log.debug("nothing to do: %s", exc)
    except BaseException as exc:  # never break Claude Code: nothing printed, exit 0, the reason logged
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            log.warning("stopped: %s", type(exc).__name__)
        else:
            log.warning("printed nothing: %s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, ValueError))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return 0
