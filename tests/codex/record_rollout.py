"""Records tests/fixtures/codex/rollout-two-compactions.jsonl from the real Codex CLI (run by hand, not a test):
``.venv/bin/python -m tests.codex.record_rollout``. One ``codex exec`` turn against the loopback stub reads four
files and compacts twice (the stub reports a usage over ``model_auto_compact_token_limit``), with our hook installed;
the rollout Codex wrote is copied with the temporary folder's path replaced by ``/work/proj``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.codex.codex_cli import COMPACT_LIMIT, install, run_codex, write_config
from tests.codex.responses_stub import ResponsesStub, exec_command, is_compaction, message

FIXTURE = Path(__file__).parent.parent / "fixtures" / "codex" / "rollout-two-compactions.jsonl"
PROJECT = "/work/proj"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        project, codex_home = Path(tmp) / "proj", Path(tmp) / "home" / ".codex"
        project.mkdir()
        codex_home.mkdir(parents=True)
        for name in ("first_a.py", "first_b.py", "second_a.py", "second_b.py"):
            (project / name).write_text("".join(f"def {name[:-3]}_{i}():\n    return {i}\n\n" for i in range(40)))
        calls = [[exec_command("c1", "cat first_a.py"), exec_command("c2", "cat first_b.py")],
                 [exec_command("c3", "cat second_a.py"), exec_command("c4", "cat second_b.py")]]  # fmt: skip
        state = {"window": 0, "next": 0}

        def script(request: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
            if is_compaction(request):
                state["window"] += 1
                state["next"] = 0
                return [message(f"Summary {state['window']}: the user asked to read the modules.")], 800
            window, at = state["window"], state["next"]
            if window >= len(calls) or at >= len(calls[window]):
                return [message("All done.")], 3_000
            state["next"] += 1
            return [calls[window][at]], (COMPACT_LIMIT + 40_000) if at == len(calls[window]) - 1 else 4_000 + 6_000 * at

        stub = ResponsesStub(script).start()
        try:
            write_config(codex_home, stub)
            install(codex_home, project)
            done = run_codex(codex_home, project, "read the modules")
        finally:
            stub.stop()
        if done.returncode != 0:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        rollout = next((codex_home / "sessions").rglob("rollout-*.jsonl"))
        text = rollout.read_text().replace(str(project), PROJECT).replace(str(codex_home.parent), "/home/user")
        FIXTURE.write_text(text)
        print(f"{FIXTURE}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
