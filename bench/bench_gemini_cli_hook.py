"""What Gemini CLI's ``BeforeModel`` hook costs per model request, against a bare interpreter start.

Gemini CLI runs the hook before every model request, compressed or not. Measured, each as Gemini runs it (a fresh
``python -m compact_lsp gemini-cli hook`` with the JSON on stdin): a bare ``python -c pass`` (the floor), the
no-op (a request with nothing compressed, at two sizes of request text), and the answer after a compression (the
session of tests/agents/gemini_cli: a region of a 9,000-line file read, then compressed), built (nothing remembered:
the first request after the compression, or after a file it names changed) and remembered (every other request:
also after a tool call since the compression, each run one more ``ls`` recorded before it, and with 300 calls since,
each a 2 KB output).
For each: the wall time (median and worst of ``RUNS``), the CPU time (user + system), and the instructions of one
run (callgrind, when valgrind is installed: independent of the load; none when valgrind's slowdown let the hook's
deadline cut the run). The load average is printed at the start: on
a busy machine the wall time holds the wait for a core. The package's bytecode is compiled first, as an installed
package's is.

Usage: `.venv/bin/python bench/bench_gemini_cli_hook.py`. Writes bench/results/bench_gemini_cli_hook.{json,md}.
"""

from __future__ import annotations

import compileall
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.agents.gemini_cli.sessions import GeminiSession  # noqa: E402

RESULTS = ROOT / "bench" / "results"
RUNS = 15
HOOK = [sys.executable, "-m", "compact_lsp", "gemini-cli", "hook"]


def run(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def instructions(argv: list[str], stdin: bytes, env: dict[str, str], expected: bool) -> int | None:
    if shutil.which("valgrind") is None:
        return None
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], input=stdin, env=env,
        capture_output=True, check=True,
    )  # fmt: skip
    found = re.search(rb"Collected : (\d+)", done.stderr)
    if found is None or (expected and not done.stdout):  # slowed ~50x, the hook's 20 s deadline cut it: no figure
        return None
    return int(found.group(1))


def measure(
    name: str, argv: list[str], stdin: bytes, env: dict[str, str], before: Callable[[], object] = lambda: None
) -> dict[str, Any]:
    """``before``: what happens before each run (the remembered answers forgotten, a tool call recorded)."""
    walls, cpus = [], []
    out = b""
    for _ in range(RUNS):
        before()
        wall, cpu, out = run(argv, stdin, env)
        walls.append(wall * 1000)
        cpus.append(cpu * 1000)
    row = {
        "case": name, "inputBytes": len(stdin), "outputBytes": len(out),
        "wallMedianMs": round(statistics.median(walls), 1), "wallWorstMs": round(max(walls), 1),
        "cpuMedianMs": round(statistics.median(cpus), 1),
        "instructions": None,
    }  # fmt: skip
    before()
    row["instructions"] = instructions(argv, stdin, env, bool(out))
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    compileall.compile_dir(str(ROOT / "server" / "compact_lsp"), quiet=1)
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        project = Path(tmp) / "project"
        project.mkdir(parents=True)
        (project / "big.py").write_text("".join(f"def step_{i}():\n    return {i}\n\n" for i in range(3000)))
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
        session = GeminiSession(home, project)
        session.user("read the steps")
        session.call("read_file", {"file_path": "big.py", "start_line": 100, "end_line": 120}, "def step_33():")
        session.compress("<state_snapshot>the user read big.py lines 100-120</state_snapshot>")
        session.write()

        def forget() -> None:
            shutil.rmtree(home / "state" / "compact-lsp", ignore_errors=True)

        def listed() -> None:
            session.call("run_shell_command", {"command": "ls"}, "big.py")
            session.write()

        small = [{"role": "user", "content": "fix the handler"}]
        big = [{"role": "user" if n % 2 == 0 else "model", "content": "x = 1\n" * 2_000} for n in range(400)]
        rows = [
            measure("python -c pass", [sys.executable, "-c", "pass"], b"", env),
            measure("no-op, 1 message", HOOK, session.hook_input(small), env),
            measure("no-op, 400 messages (4.8 MB)", HOOK, session.hook_input(big), env),
            measure("after a compression, built", HOOK, session.hook_input(), env, forget),
            measure("after a compression, remembered", HOOK, session.hook_input(), env),
            measure("after a compression, a tool call since each time", HOOK, session.hook_input(), env, listed),
        ]
        for n in range(300):
            session.call("run_shell_command", {"command": f"pytest -k case_{n}"}, f"case {n} passed\n" * 150)
        session.write()
        rows.append(measure("after a compression, 300 tool calls since", HOOK, session.hook_input(), env))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_gemini_cli_hook.json").write_text(json.dumps({"load": load, "rows": rows}, indent=2))
    lines = ["| case | input | wall median (worst) | CPU median | instructions |", "|---|---|---|---|---|"]
    for r in rows:
        ins = f"{r['instructions'] / 1e6:,.1f}M" if r["instructions"] else "n/a"
        lines.append(f"| {r['case']} | {r['inputBytes']:,} B | {r['wallMedianMs']} ms ({r['wallWorstMs']}) | "
                     f"{r['cpuMedianMs']} ms | {ins} |")  # fmt: skip
    (RESULTS / "bench_gemini_cli_hook.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
