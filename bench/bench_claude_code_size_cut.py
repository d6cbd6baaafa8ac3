"""Where the real Claude Code stops re-attaching a file whole after a compaction: bisected with the CLI itself.

Each round is one real session (``claude -p`` against the loopback Messages API stub): the agent reads five files of
different sizes inside the interval left, ``/compact`` runs, and the transcript says which came back as a ``file``
attachment (whole) and which as a ``compact_file_reference`` (by name only). Five sizes a round cut the interval
into six; rounds go on until it is at most ``RESOLUTION`` characters wide.

Then the criterion: Claude Code 2.1.332 counts a file it re-attaches with the ``count_tokens`` endpoint (when its
rough estimate, characters / 4, is over 1,250 tokens) and names it only when the count is over 5,000 tokens. The
stub answers ``count_tokens`` with the request body's bytes / 4, so a file full of characters that JSON escapes
(``"`` becomes ``\\"``) counts about twice as many tokens for the same characters: the same character count on
both sides of the cut, told apart only by tokens, shows which one is the criterion.

Usage: `.venv/bin/python bench/bench_claude_code_size_cut.py`. Writes bench/results/bench_claude_code_size_cut.json.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.claude_code_cli.claude_cli import ClaudeCode, claude_binary  # noqa: E402
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call  # noqa: E402

RESULTS = ROOT / "bench" / "results"
LOW, HIGH = 13_231, 26_863
"""Measured before: 13,231 characters came back whole, 26,863 by name only."""
RESOLUTION = 8


def code_of(chars: int, tag: str) -> str:
    """Python source of exactly ``chars`` characters (lines of ~40 characters)."""
    out: list[str] = []
    n = 0
    total = 0
    while total < chars:
        line = f"def {tag}_{n}():\n    return {n}  # line {n}\n"
        out.append(line)
        total += len(line)
        n += 1
    text = "".join(out)[:chars]
    return text[:-1] + "\n"


def quoted_of(chars: int) -> str:
    """Text of exactly ``chars`` characters, mostly ``"`` (each one two bytes once JSON-escaped)."""
    line = "S = " + '"' * 36 + "\n"
    text = (line * (chars // len(line) + 1))[:chars]
    return text[:-1] + "\n"


def one_round(binary: Path, files: dict[str, str]) -> dict[str, str]:
    """Read each file once, compact, and say how each came back: "whole", "name" or "absent"."""
    with tempfile.TemporaryDirectory(prefix="cc-cut-") as tmp, MessagesApiStub() as stub:
        home = Path(tmp) / "home"
        project = home / "work_repo"
        project.mkdir(parents=True)
        cc = ClaudeCode(binary, home, project, stub)
        for name, text in files.items():
            (project / name).write_text(text)
        cc.push(*[tool_call("Read", {"file_path": str(project / n)}) for n in files], reply("Read them."))
        session = cc.run("Read the files")["session_id"]
        cc.compact(session)
        seen: dict[str, str] = {name: "absent" for name in files}
        for record in cc.records(session):
            attachment = record.get("attachment") if record.get("type") == "attachment" else None
            if not isinstance(attachment, dict):
                continue
            name = os.path.basename(str(attachment.get("filename", "")))
            if name in seen and attachment.get("type") == "file":
                seen[name] = "whole"
            elif name in seen and attachment.get("type") == "compact_file_reference":
                seen[name] = "name"
        counted = [len(r.body.get("messages", [{}])[0].get("content", "")) for r in stub.requests
                   if r.path.split("?")[0] == "/v1/messages/count_tokens"]  # fmt: skip
        seen["countTokensCalls"] = str(len(counted))
        return seen


def main() -> int:
    binary, reason = claude_binary()
    if binary is None:
        sys.stderr.write(f"not measured: {reason}\n")
        return 1
    low, high = LOW, HIGH
    rounds: list[dict[str, Any]] = []
    while high - low > RESOLUTION:
        sizes = sorted({low + (high - low) * k // 6 for k in range(1, 6)})
        files = {f"s{size}.py": code_of(size, f"s{size}") for size in sizes}
        seen = one_round(binary, files)
        rounds.append({"sizes": sizes, "seen": seen})
        sys.stdout.write(json.dumps(rounds[-1]) + "\n")
        whole = [s for s in sizes if seen[f"s{s}.py"] == "whole"]
        named = [s for s in sizes if seen[f"s{s}.py"] == "name"]
        if not whole and not named:
            break
        low = max([low, *whole])
        high = min([high, *named])
    # The criterion: the same characters just under the cut, as plain code and as quotes.
    same = low - 200
    check = one_round(binary, {"plain.py": code_of(same, "plain"), "quoted.py": quoted_of(same)})
    result = {
        "wholeUpTo": low,
        "namedFrom": high,
        "rounds": rounds,
        "sameCharacters": same,
        "plainCode": check["plain.py"],
        "quoted": check["quoted.py"],
        "stubCountsTokensAs": "request body bytes / 4",
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_claude_code_size_cut.json").write_text(json.dumps(result, indent=2) + "\n")
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
