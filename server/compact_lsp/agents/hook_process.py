"""The hook as a process: what Claude Code (or Codex) runs after its compaction, started fresh each time.

``hook_main`` takes the hook's own arguments (``[--budget N] [--check]``) without argparse, so the hook pays for
none of the other subcommands' parsing; ``run_hook`` must never break the agent: whatever happens it exits 0,
prints either one JSON object or nothing on stdout, and says why it printed nothing on stderr and in its log file
(``hook_log_path()``, created 0600). A deadline (``HOOK_DEADLINE_SECONDS``) bounds it however big the transcript.
The same input, output and rules serve every registered agent's hook (agents/registered.py), by its name.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from compact_lsp.agents.not_for_us import NotForUs
from compact_lsp.agents.registered import agent_named

log = logging.getLogger(__name__)

MAX_INPUT_BYTES = 64 << 20
"""Gemini CLI's hook input holds the text of the whole request (a million tokens: a few MB)."""
DEFAULT_BUDGET = 8_000
"""``character_fit.DEFAULT_BUDGET``, said again here so that the hook's door imports none of the engine (a test
keeps them equal)."""
HOOK_DEADLINE_SECONDS = 20.0
"""Far below Claude Code's own hook timeout (we install 30 s); a typical answer takes well under a second."""
LEFT_FOR_EXIT: list[object] = []
"""What the hook's process never frees: the transcript it parsed, dropped with the process by ``exit_now`` (freeing
a million tokens' records one object at a time is a measurable share of the hook's instructions;
docs/claude-code.md). Only ``hook_main``, the process's own entry, fills it; ``run_hook`` called in-process
frees as usual."""


def hook_main(argv: Sequence[str]) -> int | None:
    """``<agent> hook [--budget N] [--check]`` run at once; None for anything else (help, a typo, another
    action), which the subcommand's argparse parser then answers as before."""
    if len(argv) < 2 or agent_named(argv[0]) is None or argv[1] != "hook":
        return None
    budget, check, rest = DEFAULT_BUDGET, False, list(argv[2:])
    while rest:
        arg = rest.pop(0)
        if arg == "--check":
            check = True
        elif arg.startswith("--budget=") or (arg == "--budget" and rest):
            value = arg.partition("=")[2] if "=" in arg else rest.pop(0)
            digits = value[1:] if value.startswith("-") else value
            if not (digits.isascii() and digits.isdigit()):
                return None
            budget = int(value)
        else:
            return None
    if check:
        from compact_lsp.agents.hook_launcher import ready

        sys.stdout.write(ready(argv[0]) + "\n")
        return 0
    return run_hook(sys.stdin.buffer, sys.stdout, budget=budget, agent=argv[0], keep=LEFT_FOR_EXIT)


def exit_now(code: int) -> NoReturn:
    """End the hook's process once its answer and its log are written, without the interpreter's teardown (every
    module and the parsed transcript freed one object at a time: a tenth of a 200k-token hook, docs/claude-code.md)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def hook_log_path(agent: str) -> str:
    """platformdirs' user log directory; on Linux worked out here (``$XDG_STATE_HOME`` or ``~/.local/state``,
    then ``compact-lsp/log``), so the hook does not pay for importing platformdirs (or pathlib) on every
    compaction."""
    if sys.platform.startswith("linux"):
        state = os.environ.get("XDG_STATE_HOME", "").strip() or os.path.expanduser("~/.local/state")
        return os.path.join(state, "compact-lsp", "log", f"{agent}-hook.log")
    from platformdirs import user_log_path

    return str(user_log_path("compact-lsp") / f"{agent}-hook.log")


MAX_LOG_BYTES = 1 << 20


def _log_to_file(agent: str) -> None:
    """Append to the hook's own log (0600, rotated at 1 MB) and stderr; a log we cannot open is not an error."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        path = hook_log_path(agent)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.isfile(path) and os.stat(path).st_size > MAX_LOG_BYTES:  # rotated at 1 MB, one old file kept
            os.replace(path, path + ".1")
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


def run_hook(
    stdin: IO[bytes],
    stdout: IO[str],
    *,
    budget: int = DEFAULT_BUDGET,
    agent: str,
    keep: list[object] | None = None,
) -> int:
    """The named agent's hook (``claude-code``, ``codex``): print the additional context or nothing; always exit 0.
    ``keep``: where the parsed transcript is left instead of freed (``LEFT_FOR_EXIT``)."""
    described = agent_named(agent)
    assert described is not None, f"no agent named {agent!r} (agents/registered.py)"
    started = time.perf_counter()
    collecting = gc.isenabled()
    gc.disable()  # a process of a fraction of a second: the collector would only rescan the parsed transcript
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, HOOK_DEADLINE_SECONDS)
    try:
        raw = stdin.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            raise ValueError(f"hook input over {MAX_INPUT_BYTES} bytes")
        answer, figures = described.hook_answer(raw, budget=budget, keep=keep)
        signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        session = figures.get("session", "?")
        shown = {k: v for k, v in figures.items() if k != "session"}
        _log_to_file(agent)
        if answer is None:
            log.info("session %s: nothing to add (%.2f s; %s)", session, elapsed, shown)
            return 0
        stdout.write(answer + "\n")
        stdout.flush()
        log.info("session %s: added %s (%.2f s)", session, shown, elapsed)
    except NotForUs:
        pass  # nothing to do, nothing logged: Gemini CLI runs its hook on every request
    except BaseException as exc:  # never break the agent: nothing printed, exit 0, the reason logged
        _log_to_file(agent)
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            log.warning("stopped: %s", type(exc).__name__)
        else:
            log.warning("printed nothing: %s: %s", type(exc).__name__, exc, exc_info=not isinstance(exc, ValueError))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if collecting:
            gc.enable()
    return 0
