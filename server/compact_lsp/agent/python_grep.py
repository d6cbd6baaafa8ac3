"""grep without ripgrep: Python ``re`` in a child process the server can kill.

A model-chosen pattern can backtrack for hours (``(a|aa)+$`` on a line of forty a's), and Python's ``re`` holds
the GIL while it does: run in the server, it would freeze every request, and no timeout could stop it (the
``regex`` package's timeout does not fire on such a pattern either). So the search runs in
``python -m compact_lsp.agent.python_grep``, which reads its job as JSON on stdin and writes the matching lines
on stdout; ``search`` kills it after ``GREP_TIMEOUT`` seconds. The child walks only inside the allowed roots
(realpath), skips hidden and dependency folders, reads each file through the file gate (a FIFO or a device never
blocks it) and skips binary files and files over ``MAX_GREP_FILE_BYTES``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from compact_lsp.engine.files.file_gate import AllowedRoots, GateRefused, is_inside, read_gated

MAX_GREP_LINES = 300
MAX_GREP_FILE_BYTES = 2 * 1024 * 1024
MAX_GREP_OUTPUT_CHARS = 100_000
GREP_TIMEOUT = 30.0
"""Seconds a search (ripgrep or this one) may take before it is killed."""
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache"})
"""Folders the Python grep and glob never enter (ripgrep uses .gitignore instead)."""

BAD_PATTERN_EXIT = 3


class GrepFailed(Exception):
    """The search could not run or did not finish; the text says why and what to do."""


def _walk(base: str, roots: AllowedRoots) -> Iterator[str]:
    if os.path.isfile(base):
        yield base
        return
    for folder, dirs, files in os.walk(base):  # followlinks=False: a symlinked folder is not entered
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            path = os.path.join(folder, name)
            if roots.admits(path):
                yield path


def grep_lines(base: str, roots: AllowedRoots, workspace: str, pattern: str, file_glob: str, ignore_case: bool) -> str:
    """The search itself (in the child): ``path:line:text`` per match, bounded in lines and characters."""
    regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    out: list[str] = []
    size = 0
    for path in _walk(base, roots):
        if file_glob and not Path(path).match(file_glob):
            continue
        try:
            data = read_gated(path, roots, max_bytes=MAX_GREP_FILE_BYTES)
        except (GateRefused, OSError):
            continue
        if b"\x00" in data[:8192]:
            continue
        shown = os.path.relpath(path, workspace) if is_inside(path, workspace) else path
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
            if regex.search(line):
                out.append(f"{shown}:{number}:{line[:500]}")
                size += len(out[-1])
                if len(out) >= MAX_GREP_LINES or size >= MAX_GREP_OUTPUT_CHARS:
                    out.append(f"[... stopped after {len(out)} matching lines; narrow the search]")
                    return "\n".join(out)
    return "\n".join(out)


async def search(
    base: str,
    roots: Sequence[str],
    workspace: str,
    pattern: str,
    file_glob: str,
    ignore_case: bool,
    *,
    timeout: float = GREP_TIMEOUT,
) -> str:
    """Run ``grep_lines`` in a child process, killed after ``timeout`` seconds; ``GrepFailed`` says why."""
    job = {"base": base, "roots": list(roots), "workspace": workspace, "pattern": pattern, "glob": file_glob,
           "ignore_case": ignore_case}  # fmt: skip
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "compact_lsp.agent.python_grep",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(json.dumps(job).encode("utf-8")), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise GrepFailed(
            f"the search did not finish within {timeout:g} s and was stopped; use a simpler pattern (nested "
            "repetition such as '(a+)+' can take forever) or narrow 'path' or 'glob'"
        ) from None
    except BaseException:  # cancelled: do not leave the child running
        proc.kill()
        await proc.wait()
        raise
    message = stderr.decode("utf-8", "replace").strip()[:500]
    if proc.returncode == BAD_PATTERN_EXIT:
        raise GrepFailed(message)
    if proc.returncode != 0:
        raise GrepFailed(f"grep failed: {message or f'exit code {proc.returncode}'}")
    return stdout.decode("utf-8", "replace")


def main() -> int:
    # a safety net should the server die without killing this child: the kernel stops it after its CPU budget
    cpu = int(GREP_TIMEOUT) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    job: dict[str, Any] = json.loads(sys.stdin.buffer.read())
    try:
        text = grep_lines(
            job["base"],
            AllowedRoots.of(*job["roots"]),
            job["workspace"],
            job["pattern"],
            job["glob"],
            bool(job["ignore_case"]),
        )
    except re.error as exc:
        sys.stderr.write(f"invalid regular expression {job['pattern']!r}: {exc}")
        return BAD_PATTERN_EXIT
    sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
