"""Gemini CLI session files read for ``inspect`` and ``import``: what the model holds now. The fixture is the session
file the real Gemini CLI 0.61.0 wrote in its TUI (a region of big.py read, then compressed, then two turns)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from compact_lsp.agents.gemini_cli.auto_compaction import gemini_auto_compaction
from compact_lsp.agents.gemini_cli.chat_log import is_gemini_session, read_chat
from compact_lsp.agents.gemini_cli.live import chats_folder
from compact_lsp.agents.gemini_cli.marks import COMPRESSION_ACK

FIXTURE = Path(__file__).parents[2] / "fixtures" / "gemini_cli" / "compressed-session.jsonl"


def blocks(messages: list[dict[str, object]], kind: str) -> list[dict[str, object]]:
    return [b for m in messages for b in m["content"] if isinstance(b, dict) and b["type"] == kind]  # type: ignore[union-attr]


def test_a_compressed_session_is_what_the_model_holds_now() -> None:
    chat = read_chat(str(FIXTURE))
    assert is_gemini_session(str(FIXTURE))
    assert chat.session_id == "4dbfce25-09b5-4d9d-b7c0-89edca1e08c3" and chat.model == "gemini-2.5-flash"
    assert chat.title == "Read lines 100 to 120 of big.py"  # the first prompt, though compressed away
    assert chat.cwd == "/tmp/gx/tui/proj"  # from the session context: Gemini records no cwd
    assert len(chat.compressions) == 1 and "<state_snapshot>" in chat.compressions[0]
    texts = [b["text"] for b in blocks(chat.messages, "text")]
    assert texts[0].startswith("<session_context>") and COMPRESSION_ACK in texts
    assert not blocks(chat.messages, "tool_use")  # the read was compressed away
    assert chat.usage == {"input_tokens": 6000} and chat.skipped["info"] == 1


def test_before_the_compression_each_tool_result_comes_once(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if COMPRESSION_ACK in line)
    early = tmp_path / "early.jsonl"
    early.write_text("".join(lines[:cut]) + "not json\n")
    chat = read_chat(str(early))
    (use,) = blocks(chat.messages, "tool_use")
    (result,) = blocks(chat.messages, "tool_result")  # the CLI records it twice; the model gets it once
    assert use["name"] == "read_file" and result["tool_use_id"] == use["id"]
    assert "def step_33():" in str(result["content"]) and chat.bad_lines == 1 and not chat.compressions


def test_inspect_and_import_read_it(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path / "data")}
    run = [sys.executable, "-m", "compact_lsp"]
    report = json.loads(subprocess.run([*run, "inspect", str(FIXTURE), "--json"], env=env, capture_output=True,
                                       text=True, timeout=60, check=True).stdout)  # fmt: skip
    assert report["agent"] == "gemini-cli" and report["compaction"] == {"compactions": 1}
    assert report["usage"]["reported"] == 6000
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [*run, "import", str(FIXTURE), "--workspace", str(workspace), "--session-dir", str(tmp_path / "sessions")],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "gm-4dbfce25-09b5-4d9d-b7c0-89edca1e08c3" in done.stdout


def test_the_followed_folder_is_the_one_gemini_names_for_the_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert chats_folder(str(home), "/work/my-app") == home / ".gemini" / "tmp" / "my-app" / "chats"  # not named yet
    (home / ".gemini").mkdir(parents=True)
    named = {"/work/my-app": "my-app-1", "/elsewhere": "../../etc"}
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": named}))
    assert chats_folder(str(home), "/work/my-app") == home / ".gemini" / "tmp" / "my-app-1" / "chats"
    assert chats_folder(str(home), "/elsewhere") == home / ".gemini" / "tmp" / "elsewhere" / "chats"  # no escape


def test_the_next_compression_is_gemini_clis_threshold_where_the_session_runs(tmp_path: Path) -> None:
    home = tmp_path / "home" / ".gemini"
    transcript = home / "tmp" / "proj" / "chats" / "session-x.jsonl"
    project = tmp_path / "proj"
    default = gemini_auto_compaction("gemini-2.5-flash", str(project), transcript)
    assert default.threshold == 524_288 and "default" in default.origin  # half of 1,048,576
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"model": {"compressionThreshold": 0.2}}))
    assert gemini_auto_compaction("gemini-2.5-flash", str(project), transcript).threshold == 209_715
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps({"model": {"compressionThreshold": 1.5}}))
    never = gemini_auto_compaction("gemini-2.5-flash", str(project), transcript)  # the project's wins
    assert never.threshold is None and never.disabled_by is not None and "never" in never.disabled_by
