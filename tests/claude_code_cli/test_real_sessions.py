"""Whole sessions with the real Claude Code (print mode, resumed between steps) and our hook: compacted twice.

One session, run once for the module: the agent reads three files, ``/compact`` runs (our hook, first time), the
session is resumed in a new process and the agent reads six more files and a big one last (26,863 characters, past
Claude Code's size cut), ``/compact`` runs again (our hook, second time, on a session compacted before), and one more
turn follows. Every assertion reads what the stub recorded (what reached the model) or the transcript Claude Code
wrote.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.support.messages_api_stub import MessagesApiStub, reply, tool_call

from compact_lsp.agents.claude_code.reattached import claude_code_reattachment
from compact_lsp.engine.files.file_use_timeline import FileUse

from .claude_cli import ClaudeCode, is_compaction, request_text, trail
from .conftest import compacting_by_itself, install_hook, source

FILE_TAG = re.compile(r'<file path="([^"]+)"')
HOOK_LEAD = "SessionStart hook additional context: "
FIRST = ("a.py", "b.py", "c.py")
SECOND = ("d.py", "e.py", "f.py", "g.py", "h.py", "i.py")
BIG = "big.py"
BIG_CHARS = 26_863


@dataclass
class TwiceCompacted:
    cc: ClaudeCode
    records: list[dict[str, Any]]
    contexts: list[str]
    """Our hook's additionalContext at each compaction, in order."""
    reached: list[str]
    """The text of the first model request after each compaction."""

    def after_boundary(self, n: int) -> list[dict[str, Any]]:
        """The attachments Claude Code wrote after its n-th boundary (0-based), up to the next one."""
        at = [i for i, r in enumerate(self.records) if r.get("subtype") == "compact_boundary"]
        stop = at[n + 1] if n + 1 < len(at) else len(self.records)
        return [r["attachment"] for r in self.records[at[n] + 1 : stop] if r.get("type") == "attachment"]

    def reattached(self, n: int, kind: str = "file") -> list[str]:
        return [os.path.basename(a["filename"]) for a in self.after_boundary(n) if a.get("type") == kind]


def _big(chars: int) -> str:
    text = source("big", chars // 17)
    assert len(text) >= chars
    return text[: chars - 1] + "\n"


@pytest.fixture(scope="module")
def twice(claude_code_binary: Path) -> Iterator[TwiceCompacted]:
    with tempfile.TemporaryDirectory(prefix="cc-twice-") as tmp, MessagesApiStub() as stub:
        home = Path(tmp) / "home"
        project = home / "work_repo"
        project.mkdir(parents=True)
        cc = ClaudeCode(claude_code_binary, home, project, stub)
        for name in (*FIRST, *SECOND):
            (project / name).write_text(source(name[:-3], 120))
        (project / BIG).write_text(_big(BIG_CHARS))
        install_hook(cc)
        cc.push(*[tool_call("Read", {"file_path": str(project / n)}) for n in FIRST], reply("Read the first three."))
        session = cc.run("Read the first three modules")["session_id"]
        reached: list[str] = []
        for step in range(2):
            compactions = len([r for r in cc.model_requests() if is_compaction(r.body)])
            cc.compact(session)
            assert len([r for r in cc.model_requests() if is_compaction(r.body)]) == compactions + 1
            start = len(cc.model_requests())
            if step == 0:
                reads = [tool_call("Read", {"file_path": str(project / n)}) for n in (*SECOND, BIG)]
                cc.push(*reads, reply("Read the rest."))
                cc.run("Now read the other modules and big.py", resume=session)
            else:
                cc.push(reply("Continuing."))
                cc.run("What is left?", resume=session)
            reached.append(request_text(cc.after(start)[0].body))
        records = cc.records(session)
        hooks = [
            r["attachment"]
            for r in records
            if r.get("type") == "attachment" and r["attachment"].get("hookName") == "SessionStart:compact"
        ]
        contexts = [json.loads(h["stdout"])["hookSpecificOutput"]["additionalContext"] for h in hooks]
        yield TwiceCompacted(cc, records, contexts, reached)


def test_the_second_compaction_gets_the_files_touched_since_the_first(twice: TwiceCompacted) -> None:
    first, second = twice.contexts
    assert second != first, "the second hook repeated the first one's context"
    assert trail(first) == set(FIRST), trail(first)
    assert set(SECOND) | {BIG} <= trail(second), f"the second trail misses files: {trail(second)}"
    assert not trail(second) & (set(FIRST) - set(twice.reattached(0))), "files only the first window used"
    theirs = set(twice.reattached(1))
    ours = set(FILE_TAG.findall(second))
    missing = (set(SECOND) | {BIG}) - theirs - ours
    assert not missing, f"files the agent used since the first compaction reached the model from neither: {missing}"
    assert not ours & theirs, f"the hook repeated what Claude Code re-attached: {ours & theirs}"
    assert HOOK_LEAD + second in twice.reached[1], "the second hook's context did not reach the model whole"


def test_a_file_past_the_size_cut_is_named_by_claude_code_and_attached_by_the_hook(twice: TwiceCompacted) -> None:
    assert BIG in twice.reattached(1, "compact_file_reference"), "Claude Code re-attached big.py whole"
    assert BIG not in twice.reattached(1)
    assert f'<file path="{BIG}"' in twice.contexts[1], "the hook left big.py to its name only"
    assert "def big0():" in twice.reached[1] or "def big" in twice.contexts[1]
    assert "too large to include" in twice.reached[1]  # what Claude Code itself said of it


def test_the_model_predicts_claude_codes_second_re_attachment(twice: TwiceCompacted) -> None:
    """Held files (what the first compaction put back) then the uses since: the rule, sizes included."""
    project = twice.cc.project
    held = [str(project / n) for n in twice.reattached(0)]
    uses = [
        FileUse(i, i, "Read", p, None, None) for i, p in enumerate([*held, *(str(project / n) for n in (*SECOND, BIG))])
    ]
    predicted = claude_code_reattachment(uses, lambda p: Path(p).read_text())
    assert [os.path.basename(p) for p in predicted.whole] == twice.reattached(1)
    assert [os.path.basename(p) for p in predicted.by_name] == twice.reattached(1, "compact_file_reference")


def test_a_manual_compaction_after_an_automatic_one_gets_the_window_since(claude_code: ClaudeCode) -> None:
    """Claude Code compacts by itself mid-turn (the stub reports 990,000 input tokens of its 1,000,000 window), the
    turn goes on, then the user runs /compact: the second hook's window is what followed the automatic boundary."""
    cc = claude_code
    compacting_by_itself(cc)
    session = cc.run("Read the four modules")["session_id"]
    cc.compact(session)
    records = cc.records(session)
    triggers = [r["compactMetadata"]["trigger"] for r in records if r.get("subtype") == "compact_boundary"]
    assert triggers[0] == "auto" and triggers[-1] == "manual", triggers
    hooks = [r["attachment"] for r in records if r.get("type") == "attachment"
             and r["attachment"].get("hookName") == "SessionStart:compact"]  # fmt: skip
    auto, manual = (json.loads(h["stdout"])["hookSpecificOutput"]["additionalContext"] for h in hooks[:1] + hooks[-1:])
    assert manual != auto
    assert {"c.py", "d.py"} <= trail(manual), trail(manual)
    assert "a.py" not in trail(manual), "the manual hook named a file only the window before the automatic one used"


def test_a_launcher_that_cannot_start_is_shown_with_why(claude_code: ClaudeCode) -> None:
    """The Python the launcher names is gone: Claude Code records the hook's failure with our words (the TUI shows
    them under "SessionStart:compact hook failed"), the compaction goes on without our context."""
    cc = claude_code
    (cc.project / "a.py").write_text(source("a", 40))
    install_hook(cc)
    settings = json.loads((cc.project / ".claude" / "settings.local.json").read_text())
    launcher = Path(settings["hooks"]["SessionStart"][0]["hooks"][0]["command"])
    launcher.write_text(re.sub(r"^py=.*$", "py=/gone/venv/bin/python", launcher.read_text(), flags=re.M))
    cc.push(tool_call("Read", {"file_path": str(cc.project / "a.py")}), reply("Read it."))
    session = cc.run("Read a.py")["session_id"]
    cc.compact(session)
    (failed,) = [r["attachment"] for r in cc.records(session) if r.get("type") == "attachment"
                 and r["attachment"].get("hookName") == "SessionStart:compact"]  # fmt: skip
    assert failed["type"] == "hook_non_blocking_error" and failed["exitCode"] == 2
    assert "run 'compact-lsp doctor': its Python /gone/venv/bin/python is gone" in failed["stderr"]
