"""The companion against the real Claude Code CLI (pinned in VERSION), offline against the loopback stub.

Every claim is read from what Claude Code sent the stub or wrote in its transcript.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.messages_api_stub import reply

from compact_lsp.agents.character_fit import HOOK_CHAR_LIMIT
from compact_lsp.agents.claude_code.reattached import predict_reattached
from compact_lsp.engine.claude_code.compaction_view import reattached_files
from compact_lsp.engine.claude_code.log_lines import parse_log_lines
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.files.file_use_timeline import file_uses

from .claude_cli import ClaudeCode, request_text
from .conftest import USER_REQUEST, Scripted

FILE_TAG = re.compile(r'<file path="([^"]+)"')
HOOK_LEAD = "SessionStart hook additional context: "


def test_the_first_request_after_a_real_compaction_carries_the_hooks_context_inline(scripted: Scripted) -> None:
    context = scripted.hook_context
    assert 0 < len(context) <= HOOK_CHAR_LIMIT
    first = request_text(scripted.after_compaction[0].body)
    assert "<persisted-output>" not in first, "Claude Code saved the hook's output to a file: the model saw a preview"
    assert HOOK_LEAD + context in first, "the hook's context did not reach the model whole"
    assert "<artifact-trail" in first


def test_the_hook_repeats_nothing_claude_code_re_attached(scripted: Scripted) -> None:
    theirs = {
        os.path.relpath(a["content"]["file"]["filePath"], scripted.cc.project) for a in scripted.attachments("file")
    }
    ours = set(FILE_TAG.findall(scripted.hook_context))
    assert theirs, "Claude Code re-attached no file after the compaction"
    assert ours, "the hook added no file although the agent used more than Claude Code puts back"
    assert not ours & theirs, f"the hook repeated {ours & theirs}"
    assert "g.py" not in ours | theirs, "a file only the sub-agent read came back"
    preserved = scripted.boundary["compactMetadata"]["preservedMessages"]["uuids"]
    kept = [r for r in scripted.records if r.get("uuid") in preserved]
    for record in kept:
        for block in record["message"]["content"]:
            if block.get("type") == "text" and len(block["text"]) > 40:
                assert block["text"] not in scripted.hook_context


def test_claude_codes_re_attached_files_are_what_the_rule_predicts(scripted: Scripted) -> None:
    """The measured rule: the five most recent files touched by Read, Edit or Write, newest first, whole."""
    transcript = scripted.cc.transcript(scripted.session_id)
    records, _ = parse_log_lines(transcript.read_bytes())
    observed = reattached_files(records)
    before = import_claude_code(transcript, with_subagents=False, before_last_compaction=True)
    uses = file_uses(before.session.messages, str(scripted.cc.project), before.tool_results_side)
    assert [path for path, _ in observed] == predict_reattached(uses)
    for path, text in observed:
        assert text == Path(path).read_text(), f"{path} came back in part"
    paths = [os.path.basename(p) for p, _ in observed]
    assert "new.py" in paths, "a file only written did not come back"
    assert "b.py" in paths, "a file read early and edited last did not come back"


def test_inspect_after_a_real_compaction_is_within_ten_percent_of_claude_codes_post_tokens(
    scripted: Scripted, tmp_path: Path
) -> None:
    """Right after the compaction (before the hook's records, which Claude Code's figure does not hold)."""
    transcript = scripted.cc.transcript(scripted.session_id)
    lines = transcript.read_text().splitlines()
    hook_at = next(i for i, line in enumerate(lines) if '"hook_success"' in line)
    cut = tmp_path / transcript.name
    cut.write_text("\n".join(lines[:hook_at]) + "\n")
    report = _inspect(cut)
    post = scripted.boundary["compactMetadata"]["postTokens"]
    assert report["compaction"]["postTokens"] == post
    assert abs(report["usage"]["total"] - post) <= 0.1 * post, (report["usage"]["total"], post)
    assert report["usage"]["byKind"]["attachments"] > 0, "re-attached files were not counted as attachments"
    assert report["usage"]["contextWindow"] == scripted.cc.results[0]["modelUsage"][report["model"]]["contextWindow"]


def test_the_parser_keeps_the_history_across_the_boundary_and_the_users_request_as_title(scripted: Scripted) -> None:
    imported = import_claude_code(scripted.cc.transcript(scripted.session_id))
    assert imported.session.title == USER_REQUEST
    assert imported.compaction is not None and imported.compaction["trigger"] == "manual"
    history = json.dumps(imported.history)
    assert "return 33  # b line 3" in history, "the Edit before the compaction is gone from the history"
    assert "g.py defines g0 to g64." in history, "the sub-agent's result is not in the history"
    now = imported.session.messages
    assert now[0]["role"] == "user" and "continued from a previous conversation" in json.dumps(now[0])
    assert now[1]["role"] == "assistant", "the preserved segment does not follow the summary"
    assert "compact-lsp:" in json.dumps(now), "the hook's context is not in the context the model sees"
    assert "api-request" in imported.skipped_records, "record kinds the parser does not know went uncounted"


def test_claude_code_inlines_hook_context_up_to_10000_characters_only(claude_code: ClaudeCode) -> None:
    """Claude Code's own limit, which the hook is built around: 10,000 inline; 10,001 becomes a preview."""
    seen: dict[int, str] = {}
    script = claude_code.home / "hook.py"
    script.write_text(
        "import json, sys\n"
        "n = int(sys.argv[1])\n"
        "out = {'hookSpecificOutput': {'hookEventName': 'SessionStart', 'additionalContext': 'x' * (n - 4) + 'END!'}}\n"
        "print(json.dumps(out))\n"
    )
    for size in (HOOK_CHAR_LIMIT, HOOK_CHAR_LIMIT + 1):
        _hook_settings(claude_code, f"{sys.executable} {script} {size}")
        claude_code.push(reply("Read it."))
        session = claude_code.run("Say hello")["session_id"]
        claude_code.compact(session)
        start = len(claude_code.model_requests())
        claude_code.push(reply("ok"))
        claude_code.run("Go on", resume=session)
        seen[size] = request_text(claude_code.after(start)[0].body)
    assert "x" * (HOOK_CHAR_LIMIT - 4) + "END!" in seen[HOOK_CHAR_LIMIT]
    assert "<persisted-output>" not in seen[HOOK_CHAR_LIMIT]
    assert "<persisted-output>" in seen[HOOK_CHAR_LIMIT + 1]
    assert "END!" not in seen[HOOK_CHAR_LIMIT + 1]


def _hook_settings(cc: ClaudeCode, command: str) -> None:
    settings = cc.project / ".claude" / "settings.local.json"
    settings.parent.mkdir(exist_ok=True)
    hook = {"matcher": "compact", "hooks": [{"type": "command", "command": command, "timeout": 30}]}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [hook]}}))


def _inspect(path: Path) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "compact_lsp", "inspect", "--json", str(path)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)
