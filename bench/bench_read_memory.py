"""Reads bound memory: the real server's peak RSS while it serves `compact/readFile` on hostile files.

For each case a fresh `python -m compact_lsp --stdio` opens a session and reads a small file (warm-up); its RSS
then is the resting figure; the peak is reset (`/proc/<pid>/clear_refs` = 5), the file is read, and the peak
(`VmHWM`) is recorded. Cases (the issue's two, and their neighbours):

- 16 KiB of text followed by a 1.5 GB hole (a sparse file), read with offset 1 / limit 1;
- a 400 MB single-line text file, offset 1 / limit 1 (over the 10 MiB range cap: refused), and whole (refused by
  size at once);
- 400 MB of 80-byte lines, 10 lines from the middle;
- a 9 MiB text file of 2,000 lines read whole (about the largest whole read allowed).

Usage: `.venv/bin/python bench/bench_read_memory.py` (Linux only; needs about 800 MB of free disk for a moment).
Writes bench/results/bench_read_memory.{json,md}. Exit status 1 when any peak reaches 2x the resting RSS.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.rpc import RawServer, RpcError, Workspace  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MB = 1_000_000


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak(pid: int) -> None:
    with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as f:
        f.write("5")


def _make_files(root: Path) -> None:
    with open(root / "hole.txt", "wb") as f:
        f.write(("x" * 63 + "\n").encode() * 256)  # 16 KiB of text
        f.truncate(16 * 1024 + 1_500 * MB)  # then a 1.5 GB hole (sparse: no disk used)
    line = b"y" * MB
    with open(root / "one_line.txt", "wb") as f:
        for _ in range(400):
            f.write(line)
        f.write(b"\n")
    lines = b"".join(f"{i:08d} ".encode() + b"z" * 70 + b"\n" for i in range(12_500))  # 1 MB of 80-byte lines
    with open(root / "many_lines.txt", "wb") as f:
        for _ in range(400):
            f.write(lines)
    (root / "nine_mib.txt").write_bytes(("w" * 4699 + "\n").encode() * 2000)  # 2,000 lines: one default read
    (root / "small.txt").write_text("hello\n")


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("16 KiB + 1.5 GB hole, offset 1 / limit 1", "hole.txt", {"offset": 1, "limit": 1}),
    ("400 MB single line, offset 1 / limit 1", "one_line.txt", {"offset": 1, "limit": 1}),
    ("400 MB single line, whole", "one_line.txt", {}),
    ("400 MB of 80-byte lines, 10 lines from the middle", "many_lines.txt", {"offset": 2_500_000, "limit": 10}),
    ("9 MiB text, whole", "nine_mib.txt", {}),
]


def _one_case(workspace: Workspace, path: str, extra: dict[str, Any]) -> dict[str, Any]:
    """A fresh server per case, so memory one case kept does not hide the next one's peak."""
    with RawServer(workspace) as server:
        pid = server.proc.pid
        session_id = server.new_session()
        server.request("compact/readFile", {"sessionId": session_id, "path": "small.txt"})
        resting = _status_kib(pid, "VmRSS")
        _reset_peak(pid)
        started = time.perf_counter()
        try:
            read = server.request("compact/readFile", {"sessionId": session_id, "path": path, **extra}, timeout=600)
            outcome = f"{read['numLines']} lines of {read['totalLines']}"
        except RpcError as exc:
            outcome = "refused: " + exc.message.split(": ", 1)[-1].split(";")[0][:60]
        took = time.perf_counter() - started
        peak = _status_kib(pid, "VmHWM")
    return {"outcome": outcome, "seconds": round(took, 2), "resting_mib": round(resting / 1024, 1),
            "peak_mib": round(peak / 1024, 1), "ratio": round(peak / resting, 2)}  # fmt: skip


def run() -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-read-memory-") as base:
        workspace = Workspace(Path(base))
        _make_files(workspace.root)
        for name, path, extra in CASES:
            rows.append({"case": name, **_one_case(workspace, path, extra)})
    return {"cases": rows}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "| read | outcome | time (s) | resting RSS (MiB) | peak RSS (MiB) | peak / resting |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in result["cases"]:
        lines.append(f"| {row['case']} | {row['outcome']} | {row['seconds']} | {row['resting_mib']} | "
                     f"{row['peak_mib']} | {row['ratio']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    result = run()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_read_memory.json").write_text(json.dumps(result, indent=2) + "\n")
    text = markdown(result)
    (RESULTS / "bench_read_memory.md").write_text(text)
    print(text)
    return 0 if all(row["ratio"] < 2 for row in result["cases"]) else 1


if __name__ == "__main__":
    if not os.path.exists("/proc/self/clear_refs"):
        sys.exit("bench_read_memory needs Linux (/proc/<pid>/clear_refs)")
    sys.exit(main())
