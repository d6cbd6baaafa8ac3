"""What a user waits for at ``/compress`` in the real Qwen Code: our command hook, an ``http`` hook, no hook.

The real Qwen Code 0.24.4 (tests/qwen_code/setup.sh) against the loopback Chat Completions stub, in one process
with several turns (``qwen --yolo --input-format stream-json``: the TUI's own ``/compress`` command, which awaits
the ``SessionStart`` hook): a turn reads lines 1001-1040 of a 3,000-line file, then ``/compress`` is typed; timed
from writing that line to Qwen's ``result`` for it (the summary request, answered at once by the stub, and the
hook), then a last turn shows what reached the model. Three setups, alternating run by run:

- ``command``: our hook as ``compact-lsp qwen-code install-hook --user`` installs it (the launcher);
- ``http``: a ``type: "http"`` hook to a loopback server this script starts that answers at once with the JSON
  our command hook gave for the same input (recorded first, by a run whose server ran the command hook): the
  floor of an http hook served by a running compact-lsp (its own work, 0.1-0.3 s, not counted);
- ``none``: no hook.

For each: the median and spread of the wait, and of its part after the stub answered the summary (the hook's share).
The load average is printed at the start and the end: on a busy machine the wall time holds the wait for a core.
``--combine`` also checks how Qwen combines two ``SessionStart`` answers (an http entry and a command entry, both
answering; and the http one refused, as with no server running), from what the next request carries.

Usage: `.venv/bin/python bench/bench_qwen_code_hook.py [--runs N] [--combine]`. Writes
bench/results/bench_qwen_code_hook.{json,md}.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.qwen_code.chat_completions_stub import ChatCompletionsStub, Reply, Request, system_text, text_of  # noqa: E402
from tests.qwen_code.qwen_cli import QWEN, QwenHome, is_main, is_summary, our_block  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MODES = ("command", "http", "none")
HOOK = [sys.executable, "-m", "compact_lsp", "qwen-code", "hook"]
OWN = re.compile(r": added .*\(([0-9.]+) s\)")
WAITED = re.compile(r"waitedForRecord\W+([0-9.]+)")


class HookServer:
    """A loopback ``http`` hook: answers each POST with ``answer(body)``; records when each came."""

    def __init__(self, answer: Callable[[bytes], bytes]) -> None:
        self.answer = answer
        self.posts: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server.posts.append(time.perf_counter())
                body = server.answer(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/hook"

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def hooks(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"SessionStart": [{"matcher": "compact|resume", "hooks": list(entries)}]}


def script(project: Path, summarized: list[float]) -> Callable[[Request], Reply]:
    def answer(request: Request) -> Reply:
        if is_summary(request):
            summarized.append(time.perf_counter())
            text = "<state_snapshot>The user asked to review big.py lines 1001-1040.</state_snapshot>"
            return Reply(text=text, prompt_tokens=max(1_000, len(json.dumps(request["messages"])) // 4))
        if "review big.py" in text_of(request["messages"][-1].get("content")):
            args = {"file_path": str(project / "big.py"), "offset": 1000, "limit": 40}
            return Reply(calls=[("read_file", args)], prompt_tokens=9_000)
        return Reply(text="Reviewed.", prompt_tokens=5_000)

    return answer


def session(tmp: Path, settings_hooks: dict[str, Any] | None, install: bool) -> dict[str, Any]:
    """One session: a turn, ``/compress`` (timed), a turn. Returns the wait, the hook's share and the last
    request's system message."""
    project = tmp / "proj"
    project.mkdir(parents=True)
    (project / "big.py").write_text(
        "".join(f"handler_{i} = respond(request, {i})  # line {i + 1}\n" for i in range(3000))
    )
    summarized: list[float] = []
    stub = ChatCompletionsStub(script(project, summarized)).start()
    try:
        qwen = QwenHome(tmp / "home", project, stub)
        qwen.write_settings(**({"hooks": settings_hooks} if settings_hooks else {}))
        if install:
            qwen.install()
        spans: list[tuple[float, float]] = []
        prompts = ["review big.py around line 1000", "/compress", "what changed in the region?"]
        results = qwen.session(prompts, spans)
        assert all(result.get("subtype") == "success" for result in results), results
        compress = spans[prompts.index("/compress")]
        assert stub.refused == [] and len(summarized) == 1, (stub.refused, summarized)
        last = [r for r in stub.requests if is_main(r)][-1]
        log = qwen.hook_log.read_text() if qwen.hook_log.is_file() else ""
        return {
            "waitMs": (compress[1] - compress[0]) * 1000,
            "afterSummaryMs": (compress[1] - summarized[0]) * 1000,
            "summaryAt": summarized[0],
            "system": system_text(last),
            "block": our_block(last),
            "hookOwnMs": [float(x) * 1000 for x in OWN.findall(log)],
            "waitedMs": [float(x) * 1000 for x in WAITED.findall(log)],
        }
    finally:
        stub.stop()


def record(tmp: Path) -> bytes:
    """Our command hook's answer to the input Qwen sends at ``/compress``: a run whose http hook runs it."""
    answers: list[bytes] = []

    def run_command(body: bytes) -> bytes:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env["HOME"] = str(tmp / "home")
        done = subprocess.run(HOOK, input=body, env=env, capture_output=True, check=True, timeout=60)
        answers.append(done.stdout)
        return done.stdout

    server = HookServer(run_command)
    try:
        result = session(tmp, hooks({"type": "http", "url": server.url, "timeout": 60}), install=False)
    finally:
        server.stop()
    assert result["block"] is not None and len(answers) == 1, "the recorded answer did not reach the model"
    return answers[0]


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values)),
        "min": round(min(values)),
        "max": round(max(values)),
    }


def measure(runs: int, answer: bytes, tmp: Path) -> dict[str, Any]:
    server = HookServer(lambda body: answer)
    waits: dict[str, list[float]] = {m: [] for m in MODES}
    shares: dict[str, list[float]] = {m: [] for m in MODES}
    own: list[float] = []
    waited: list[float] = []
    try:
        for n in range(runs):
            for mode in MODES[n % 3 :] + MODES[: n % 3]:  # alternating, each first in turn
                posts = len(server.posts)
                entry = hooks({"type": "http", "url": server.url, "timeout": 60}) if mode == "http" else None
                done = session(tmp / f"{mode}-{n}", entry, install=mode == "command")
                assert (done["block"] is None) == (mode == "none"), f"{mode}: our block reached the model or not"
                assert (len(server.posts) - posts) == (mode == "http")
                waits[mode].append(done["waitMs"])
                shares[mode].append(done["afterSummaryMs"])
                own.extend(done["hookOwnMs"])
                waited.extend(done["waitedMs"])
                print(f"{mode:8} run {n + 1}: {done['waitMs']:7.0f} ms ({done['afterSummaryMs']:.0f} after the "
                      "summary)", flush=True)  # fmt: skip
    finally:
        server.stop()
    rows: dict[str, dict[str, Any]] = {
        m: {"wait": spread(waits[m]), "afterSummary": spread(shares[m]), "runs": waits[m]} for m in MODES
    }
    # the command hook's own work (its log: reading the transcript, building the answer), and how many of its
    # runs waited for Qwen's compaction record: a served hook would do both too
    rows["command"]["hookOwn"] = spread(own) if own else None
    rows["command"]["waitedForRecord"] = [round(w) for w in waited]
    print(f"command hook's own work: {rows['command']['hookOwn']}; waited for the record: {waited}", flush=True)
    return rows


def combine(tmp: Path) -> dict[str, Any]:
    """Two ``SessionStart`` entries, http and command, each answering its own marker; then the http one refused."""

    def marked(word: str) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": f"{word}-ANSWER"}}

    command = {"type": "command", "command": f"echo '{json.dumps(marked('COMMAND'))}'"}
    server = HookServer(lambda body: json.dumps(marked("HTTP")).encode())
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # a port nobody listens on: as with no server running
    refused_url = f"http://127.0.0.1:{closed.getsockname()[1]}/hook"
    try:
        both = session(tmp / "both", hooks({"type": "http", "url": server.url, "timeout": 60}, command), False)
        down = session(tmp / "down", hooks({"type": "http", "url": refused_url, "timeout": 60}, command), False)
    finally:
        server.stop()
        closed.close()
    found = {}
    for name, done in (("both answer", both), ("http refused", down)):
        found[name] = {
            "carries": [w for w in ("HTTP-ANSWER", "COMMAND-ANSWER") if w in done["system"]],
            "waitMs": round(done["waitMs"]),
            "blocks": done["system"].count("<qwen:session-start-context"),
            "block": done["system"][done["system"].find("<qwen:session-start-context") :],
        }
        print(f"{name}: {found[name]}", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--combine", action="store_true")
    args = parser.parse_args()
    if not QWEN.exists():
        sys.exit(f"Qwen Code is not installed ({QWEN}): run bash .ci/setup-tests")
    compileall.compile_dir(str(ROOT / "server" / "compact_lsp"), quiet=1)
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        answer = record(Path(tmp) / "record")
        print(f"recorded answer: {len(answer):,} bytes", flush=True)
        rows = measure(args.runs, answer, Path(tmp))
        combined = combine(Path(tmp) / "combine") if args.combine else None
    end = os.getloadavg()
    print(f"load average at end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    data = {"load": [load, end], "answerBytes": len(answer), "rows": rows, "combine": combined}
    (RESULTS / "bench_qwen_code_hook.json").write_text(json.dumps(data, indent=2))
    lines = ["| hook | /compress wait, median (min-max) | after the summary, median (min-max) |", "|---|---|---|"]
    for mode, row in rows.items():
        w, s = row["wait"], row["afterSummary"]
        lines.append(
            f"| {mode} | {w['median']} ms ({w['min']}-{w['max']}) | {s['median']} ms ({s['min']}-{s['max']}) |"
        )
    (RESULTS / "bench_qwen_code_hook.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
