"""Records tests/fixtures/claude_code/transcript-two-compactions.jsonl from the real Claude Code CLI (run by hand, not
a test): ``.venv/bin/python -m tests.claude_code_cli.record_transcript``. Our hook is installed as a user installs it;
the agent reads seven files, the user runs ``/compact`` (manual: Claude Code re-attaches five, our hook delivers the
other two), the session is resumed, the agent reads two more and the stub reports 990,000 input tokens of the
1,000,000 window, so Claude Code compacts by itself mid-turn (automatic) and goes on. The transcript is copied with
the temporary folder's path replaced by ``/home/user``, without the ``api-request*`` and ``prompt_snapshot`` records
(the system prompt and tools, 370 KB nothing here reads)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.claude_code_cli.claude_cli import ClaudeCode, claude_binary
from tests.claude_code_cli.conftest import install_hook, source
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

FIXTURE = Path(__file__).parent.parent / "fixtures" / "claude_code" / "transcript-two-compactions.jsonl"


def _bulky(record: dict[str, Any]) -> bool:
    attachment = record.get("attachment")
    kind = attachment.get("type") if isinstance(attachment, dict) else None
    return str(record.get("type", "")).startswith("api-request") or kind == "prompt_snapshot"


def main() -> int:
    binary, why = claude_binary()
    if binary is None:
        print(why, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="cc-record-") as tmp, MessagesApiStub() as stub:
        home = Path(tmp) / "home"
        project = home / "work_repo"
        project.mkdir(parents=True)
        cc = ClaudeCode(binary, home, project, stub)
        for name in "abcdefghi":
            (project / f"{name}.py").write_text(source(name, 120))
        install_hook(cc)
        cc.push(*[tool_call("Read", {"file_path": str(project / f"{n}.py")}) for n in "abcdefg"],
                reply("Read the first seven."))  # fmt: skip
        session = cc.run("Read the first seven modules")["session_id"]
        cc.compact(session)
        cc.push(
            tool_call("Read", {"file_path": str(project / "h.py")}),
            tool_call("Read", {"file_path": str(project / "i.py")}, input_tokens=990_000),
            reply("Read them all."),
        )
        cc.run("Now read h.py and i.py", resume=session)
        lines = cc.transcript(session).read_text().replace(str(home), "/home/user").splitlines(keepends=True)
        text = "".join(line for line in lines if not _bulky(json.loads(line)))
        FIXTURE.write_text(text)
        print(f"{FIXTURE}: {len(text.splitlines())} lines, session {session}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
