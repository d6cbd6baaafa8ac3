"""Codex's end of our hook's launcher (agents/hook_launcher.py): the reason a hook cannot start, where Codex shows
it.

Codex 0.171.0 shows a failed hook as its status alone ("hook exited with code 2"; stderr and stdout dropped) and a
hook's ``systemMessage`` as "Hook · <message>" (docs/codex.md, tests/codex/test_real_tui.py).
"""

from __future__ import annotations

import json
import shlex

from compact_lsp.agents.hook_launcher import LAUNCH_FAILED, launcher_text


def launcher_tail(python: str, gone: str, failed: str) -> list[str]:
    """The Codex launcher's end: when the hook cannot start, why on stderr and, for Codex, as the hook's
    ``systemMessage`` with status 0 (measured on 0.171.0: a non-zero status shows "Hook failed / hook exited with
    code N" and drops both stderr and stdout, while a ``systemMessage`` is shown as "Hook · <message>"); a check
    (``--check``, doctor and install-hook) still gets ``LAUNCH_FAILED``. The hook's own answer is held until it
    ends, so a hook that fails half-way never mixes its output with ours."""
    said = json.dumps({"systemMessage": gone.replace("$py", python)})
    head, tail = json.dumps({"systemMessage": failed.replace(", above", "")}).split("$status")
    check = f'[ "$1" = --check ] && exit {LAUNCH_FAILED}'
    return [
        f'[ -x "$py" ] || {{ echo "{gone}" >&2; {check}; printf \'%s\\n\' {shlex.quote(said)}; exit 0; }}',
        'out=$("$py" -m compact_lsp codex hook "$@")',
        "status=$?",
        f'[ "$status" -eq 0 ] || {{ echo "{failed}" >&2; {check}; '
        f"printf '%s%s%s\\n' {shlex.quote(head)} \"$status\" {shlex.quote(tail)}; exit 0; }}",
        '[ -z "$out" ] || printf \'%s\\n\' "$out"',
    ]


def codex_launcher_text(python: str, pythonpath: list[str]) -> str:
    """Codex's launcher script (``hook_launcher.launcher_text`` with its end)."""
    return launcher_text(python, pythonpath, "codex", launcher_tail)
