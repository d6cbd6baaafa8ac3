"""Rehydration after full compaction: which files, plan and skills come back, in what form, in what budget."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_lsp.engine.compaction.file_excerpts import EXCERPTS_BEFORE
from compact_lsp.engine.compaction.file_ranking import boosted_ranker
from compact_lsp.engine.compaction.rehydration import (
    LISTED_PAST_BUDGET,
    RehydrationResult,
    rehydrate,
    rehydration_candidates,
)
from compact_lsp.engine.compaction.skills import SkillFile, skills_from_read_state
from compact_lsp.engine.conversation.messages import Attachment, Message
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.files.file_gate import AllowedRoots, gated_reader
from compact_lsp.engine.files.plan_state import PlanState
from compact_lsp.engine.files.read_state import ReadFileState
from compact_lsp.engine.prompts import FILE_OUTLINE_HEADER, SKILL_TRUNCATED_NOTE
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.lsp.protocol.answers import rehydration_answer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rehydration"


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


class Workspace:
    """A tmp_path workspace with a read-file state on a ticking clock (each event one second later)."""

    def __init__(self, root: Path, counter: TiktokenCounter) -> None:
        self.root = root / "ws"
        self.root.mkdir()
        self.counter = counter
        ticks: Iterator[int] = itertools.count(1_000)
        self.state = ReadFileState(cwd=str(self.root), counter=counter, clock=lambda: float(next(ticks)))

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, rel: str, text: str | None = None, **range_: int) -> None:
        """The agent reads ``rel`` (creating it with ``text`` first when given)."""
        if text is not None:
            self.write(rel, text)
        content = (self.root / rel).read_text(encoding="utf-8")
        self.state.record_read(rel, content, tool_use_id=f"toolu_{rel}", **range_)

    def rehydrate(self, kept: list[Message] | None = None, **kwargs: Any) -> RehydrationResult:
        kwargs.setdefault("settings", RehydrationSettings())
        kwargs.setdefault("plan", None)
        return rehydrate(
            read_state=self.state,
            kept_messages=kept or [],
            counter=self.counter,
            workspace_roots=[str(self.root)],
            **kwargs,
        )


@pytest.fixture
def ws(tmp_path: Path, counter: TiktokenCounter) -> Workspace:
    return Workspace(tmp_path, counter)


def numbered(n: int, prefix: str = "line") -> str:
    """``n`` distinct lines of ordinary code-like text (about 10 tokens each)."""
    return "\n".join(f"{prefix}_{i} = compute_value({i}, scale=2)  # step {i}" for i in range(1, n + 1)) + "\n"


def file_paths(result: RehydrationResult) -> list[str | None]:
    return [a.path for a in result.attachments if a.kind in ("file", "file-deleted")]


def by_path(result: RehydrationResult, path: str) -> Attachment:
    return next(a for a in result.attachments if a.path == path)


def reason_of(result: RehydrationResult, path: str) -> str:
    return next(c.reason for c in result.candidates if c.path == path)


# -- budget packing and ordering -----------------------------------------------------------------------------


def test_files_come_back_newest_first_within_max_files(ws: Workspace) -> None:
    for i in range(7):
        ws.read(f"src/m{i}.py", numbered(20, f"m{i}"))
    result = ws.rehydrate(settings=RehydrationSettings(max_files=5))
    assert file_paths(result) == [f"src/m{i}.py" for i in (6, 5, 4, 3, 2)]
    assert reason_of(result, "src/m0.py") == "beyond the 5-file limit"
    assert [c.included for c in result.candidates] == [True] * 5 + [False] * 2


def test_by_default_the_token_budget_not_a_file_count_decides(ws: Workspace) -> None:
    for i in range(12):  # twelve small files: Claude Code's rule would bring back five
        ws.read(f"src/s{i}.py", numbered(5, f"s{i}"))
    for i in range(30):  # then thirty of ~960 tokens: the 20k budget runs out first
        ws.read(f"lib/b{i}.py", numbered(50, f"b{i}"))
    result = ws.rehydrate()
    included = [c for c in result.candidates if c.included]
    assert len(included) > 5
    assert included[0].path == "lib/b29.py"
    assert result.file_tokens <= RehydrationSettings().budget_tokens
    assert all("file limit" not in c.reason for c in result.candidates)


def test_once_the_budget_is_spent_no_more_files_are_read(ws: Workspace) -> None:
    """Rehydration costs what it returns: past the budget, what the read-file state knows decides."""
    for i in range(200):  # ~960 tokens each: about twenty fit the 20k budget
        ws.read(f"lib/b{i}.py", numbered(50, f"b{i}"))
    opened: list[str] = []
    gate = gated_reader(AllowedRoots.of(str(ws.root)))

    def read_text(path: str) -> bytes:
        opened.append(path)
        return gate(path)

    result = ws.rehydrate(read_text=read_text)
    included = [c for c in result.candidates if c.included]
    assert 15 <= len(included) <= len(opened) <= len(included) + 2  # at most one read to be cut to what is left
    assert len(result.candidates) == len(included) + LISTED_PAST_BUDGET  # the first hundred left out say why
    assert len(result.candidates) + result.unlisted == 200  # the rest are counted, never looked at
    assert "left in the total budget" in reason_of(result, "lib/b99.py")
    assert all(c.path != "lib/b0.py" for c in result.candidates)
    assert file_paths(result) == file_paths(ws.rehydrate())  # the same files as reading every one


def test_attachments_are_ordered_plan_files_skills_memory(ws: Workspace) -> None:
    ws.read("app.py", numbered(5))
    plan = PlanState(text="- [~] fix the login bug (in_progress)", source="tool")
    skill = SkillFile("/home/u/.claude/skills/pdf/SKILL.md", "# PDF skill\nUse pdftotext.")
    memory = SkillFile(str(ws.root / ".compact/memory/MEMORY.md"), "- [style](style.md): house style")
    result = ws.rehydrate(plan=plan, skills=[skill], memory_indexes=[memory])
    assert [a.kind for a in result.attachments] == ["plan", "file", "skill", "memory-index"]
    assert "fix the login bug" in result.attachments[0].text
    assert result.tokens_used == sum(a.meta["tokens"] for a in result.attachments)


@pytest.mark.parametrize(
    ("max_files", "expected"),
    [
        pytest.param(0, [], id="no-files"),
        pytest.param(1, ["c.py"], id="one-file"),
        pytest.param(3, ["c.py", "b.py", "a.py"], id="all-three"),
    ],
)
def test_max_files(ws: Workspace, max_files: int, expected: list[str]) -> None:
    for name in ("a.py", "b.py", "c.py"):
        ws.read(name, numbered(10, name[0]))
    result = ws.rehydrate(settings=RehydrationSettings(max_files=max_files))
    assert file_paths(result) == expected


@pytest.mark.parametrize(
    ("token_budget", "full", "partial", "left_out"),
    [
        pytest.param(50_000, ["d.py", "c.py", "b.py", "a.py"], [], [], id="everything-fits"),
        pytest.param(2_600, ["d.py", "c.py"], ["b.py"], ["a.py"], id="third-cut-to-remainder"),
        pytest.param(2_050, ["d.py", "c.py"], [], ["b.py", "a.py"], id="remainder-too-small"),
    ],
)
def test_total_token_budget(
    ws: Workspace, token_budget: int, full: list[str], partial: list[str], left_out: list[str]
) -> None:
    for name in ("a.py", "b.py", "c.py", "d.py"):
        ws.read(name, numbered(50, name[0]))  # 960 tokens each as an attachment
    result = ws.rehydrate(settings=RehydrationSettings(token_budget=token_budget))
    included = {c.path: c for c in result.candidates if c.included}
    assert [p for p in included if not included[p].partial] == full
    assert [p for p in included if included[p].partial] == partial
    assert [c.path for c in result.candidates if not c.included] == left_out
    assert result.file_tokens <= token_budget
    assert sum(c.tokens for c in included.values()) == result.file_tokens


# -- big files come back as ranges ---------------------------------------------------------------------------


def test_big_file_comes_back_as_the_range_read(ws: Workspace, counter: TiktokenCounter) -> None:
    ws.write("big.py", numbered(2_000))
    ws.read("big.py", start_line=500, num_lines=110, total_lines=2_000)
    result = ws.rehydrate()
    attachment = by_path(result, "big.py")
    assert attachment.meta["partial"] is True
    assert 'lines="500-609" partial="true"' in attachment.text
    shown = attachment.text.split(FILE_OUTLINE_HEADER, 1)[0]
    assert "line_500 = " in shown and "line_609 = " in shown
    assert "line_1 = " not in shown and "line_610 = " not in shown
    assert "[... lines 1-499 omitted: offset=1 limit=499 ...]" in attachment.text
    assert "partial: big.py has 2000 lines" in attachment.text
    assert counter.count_text(attachment.text) <= RehydrationSettings().file_cap_tokens
    # the outline of the rest says where to read next: anchors every 100 lines in a file without definitions
    outline = attachment.text.split(FILE_OUTLINE_HEADER, 1)[1]
    assert "\n1901-2000 line_1901 = compute_value(1901, scale=2) # step 1901" in outline
    assert "\n401-500 " in outline and "\n601-700 " in outline
    assert "501-600" not in outline  # an anchor wholly inside the lines shown is left out


def _edit(ws: Workspace, rel: str, n: int, new: str) -> list[Message]:
    """The agent replaces line ``n`` of ``rel`` by ``new``: the file on disk and the history that says so."""
    text = (ws.root / rel).read_text()
    ws.write(rel, text.replace(f"line_{n} = compute_value({n}, scale=2)  # step {n}\n", new + "\n"))
    ws.state.record_edit(rel, f"toolu_edit_{n}")
    call = {"file_path": str(ws.root / rel), "old_string": f"line_{n} = ", "new_string": new}
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"toolu_edit_{n}", "name": "Edit", "input": call}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_edit_{n}", "content": "ok"}]},
    ]


@pytest.mark.parametrize(
    ("edits", "lines", "whole"),
    [
        pytest.param(1, 600, False, id="edited-once-slices"),
        pytest.param(2, 600, True, id="kept-working-on-whole"),
        pytest.param(2, 900, False, id="kept-working-on-but-too-big"),
    ],
)
def test_a_file_the_agent_kept_editing_comes_back_whole_when_it_fits(
    ws: Workspace, counter: TiktokenCounter, edits: int, lines: int, whole: bool
) -> None:
    # about 11k tokens (600 lines) is over the 8k cap but within twice it; 900 lines (17k) is not
    settings = RehydrationSettings(token_budget=40_000, max_tokens_per_file=8_000)
    ws.read("big.py", numbered(lines))
    history = [m for n in (100, 500)[:edits] for m in _edit(ws, "big.py", n, f"line_{n} = 0  # changed")]
    attachment = by_path(ws.rehydrate(history=history, settings=settings), "big.py")
    assert attachment.meta["partial"] is not whole
    assert ("line_300 = " in attachment.text) is whole
    assert "line_500 = 0  # changed" in attachment.text if edits == 2 else True


def test_a_small_gap_between_two_slices_is_filled(ws: Workspace) -> None:
    ws.write("big.py", numbered(2_000))
    ws.read("big.py", start_line=500, num_lines=20, total_lines=2_000)
    history = _edit(ws, "big.py", 560, "line_560 = 0  # changed")  # 3 lines of context: 557-563
    default = by_path(ws.rehydrate(history=history), "big.py")
    assert 'lines="500-563"' in default.text  # lines 520-556 (37 lines) filled
    before = by_path(ws.rehydrate(history=history, excerpts=EXCERPTS_BEFORE), "big.py")
    assert 'lines="500-519,557-563"' in before.text
    assert FILE_OUTLINE_HEADER not in before.text


def test_big_file_edited_comes_back_around_the_edit(ws: Workspace) -> None:
    ws.read("big.py", numbered(2_000))
    new = "line_1500 = compute_value(1500, scale=3)  # changed"
    text = (ws.root / "big.py").read_text().replace("line_1500 = compute_value(1500, scale=2)  # step 1500", new)
    ws.write("big.py", text)
    history: list[Message] = [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_edit",
                    "name": "Edit",
                    "input": {"file_path": str(ws.root / "big.py"), "old_string": "x", "new_string": new},
                }
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_edit", "content": "ok"}]},
    ]
    ws.state.record_edit("big.py", "toolu_edit")
    attachment = by_path(ws.rehydrate(history=history), "big.py")
    assert new in attachment.text
    assert re.search(r'lines="1497-\d+', attachment.text), attachment.text[:200]


def test_big_file_read_whole_comes_back_as_its_head(ws: Workspace) -> None:
    ws.read("big.py", numbered(2_000))
    attachment = by_path(ws.rehydrate(), "big.py")
    assert re.search(r'lines="1-\d+" partial="true"', attachment.text)
    assert "line_1 = " in attachment.text and "line_2000 = " not in attachment.text
    assert "showing its beginning" in attachment.text


def test_minified_single_line_file_is_cut_not_dropped(ws: Workspace, counter: TiktokenCounter) -> None:
    ws.read("bundle.min.js", ";".join(f"var a{i}=f({i})" for i in range(20_000)))
    attachment = by_path(ws.rehydrate(), "bundle.min.js")
    assert 'lines="1-1" partial="true"' in attachment.text
    assert counter.count_text(attachment.text) <= RehydrationSettings().file_cap_tokens


# -- content is current --------------------------------------------------------------------------------------


def test_file_changed_after_its_read_comes_back_with_new_bytes(ws: Workspace) -> None:
    ws.read("app.py", "def handler():\n    return 'old'\n")
    ws.write("app.py", "def handler():\n    return 'new'\n")
    attachment = by_path(ws.rehydrate(), "app.py")
    assert "return 'new'" in attachment.text and "return 'old'" not in attachment.text


def test_deleted_file_is_reported_as_deleted(ws: Workspace) -> None:
    ws.read("src/old.py", numbered(3))
    ws.read("src/keep.py", numbered(3))
    (ws.root / "src/old.py").unlink()
    result = ws.rehydrate()
    notice = by_path(result, "src/old.py")
    assert notice.kind == "file-deleted"
    assert "src/old.py was deleted since it was read" in notice.text
    assert "line_1" not in notice.text
    assert next(c for c in result.candidates if c.path == "src/old.py").deleted


@pytest.mark.parametrize(
    ("dirty", "expected", "marked"),
    [
        pytest.param(True, "return 'unsaved'", True, id="dirty-buffer"),
        pytest.param(False, "return 'disk'", False, id="clean-buffer-reads-disk"),
    ],
)
def test_editor_buffer(ws: Workspace, dirty: bool, expected: str, marked: bool) -> None:
    ws.read("app.py", "def f():\n    return 'disk'\n")
    ws.state.open_document("app.py", "def f():\n    return 'disk'\n", 1)
    if dirty:
        ws.state.change_document("app.py", "def f():\n    return 'unsaved'\n", 2)
    result = ws.rehydrate()
    attachment = by_path(result, "app.py")
    assert expected in attachment.text
    assert ('source="editor-buffer"' in attachment.text) is marked
    assert (attachment.meta["source"] == "editor-buffer") is marked


def test_open_document_never_read_is_a_candidate(ws: Workspace) -> None:
    ws.write("notes.md", "# Notes\nremember the cache key\n")
    ws.state.open_document("notes.md", "# Notes\nremember the cache key\n", 1)
    assert "remember the cache key" in by_path(ws.rehydrate(), "notes.md").text


# -- what is never rehydrated --------------------------------------------------------------------------------


def _outside(ws: Workspace) -> None:
    secret = ws.root.parent / "secret.txt"
    secret.write_text("API_KEY=hunter2\n")
    ws.state.record_read(str(secret), "API_KEY=hunter2\n")


def _symlink_escape(ws: Workspace) -> None:
    secret = ws.root.parent / "secret.txt"
    secret.write_text("API_KEY=hunter2\n")
    os.symlink(secret, ws.root / "link.txt")
    ws.state.record_read("link.txt", "API_KEY=hunter2\n")


def _symlink_repointed(ws: Workspace) -> None:
    (ws.root / "target.txt").write_text("harmless\n")
    os.symlink(ws.root / "target.txt", ws.root / "link.txt")
    ws.state.record_read("link.txt", "harmless\n")
    secret = ws.root.parent / "secret.txt"
    secret.write_text("API_KEY=hunter2\n")
    (ws.root / "target.txt").unlink()
    os.symlink(secret, ws.root / "target.txt")  # the path seen inside now leads outside


def _failed_read(ws: Workspace) -> None:
    ws.read("secret.txt", "API_KEY=hunter2\n")
    ws.state.observe(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t9", "name": "Read", "input": {"file_path": "secret.txt"}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t9",
                        "content": "Permission denied",
                        "is_error": True,
                    }
                ],
            },
        ]
    )


def _denied(ws: Workspace) -> frozenset[str]:
    ws.read("secret.txt", "API_KEY=hunter2\n")
    return frozenset({str(ws.root / "secret.txt")})


@pytest.mark.parametrize(
    ("setup", "reason"),
    [
        pytest.param(_outside, "outside the workspace roots", id="outside-workspace"),
        pytest.param(_symlink_escape, "outside the workspace roots", id="symlink-escape"),
        pytest.param(_symlink_repointed, "outside the workspace roots", id="symlink-repointed-after-read"),
        pytest.param(_failed_read, "the last read failed: Permission denied", id="failed-read"),
        pytest.param(_denied, "access denied by permissions", id="denied-path"),
    ],
)
def test_never_rehydrated(ws: Workspace, setup: Callable[[Workspace], Any], reason: str) -> None:
    ws.read("ok.py", "x = 1\n")
    denied = setup(ws) or frozenset()
    result = ws.rehydrate(denied_paths=denied)
    assert all("hunter2" not in a.text for a in result.attachments)
    assert file_paths(result) == ["ok.py"]
    assert [c.reason for c in result.candidates if not c.included] == [reason]


def test_a_file_whose_edit_was_rejected_still_comes_back(ws: Workspace) -> None:
    ws.read("app.py", "x = 1\n")
    ws.state.observe(
        [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t8", "name": "Edit",
             "input": {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t8", "is_error": True,
             "content": "The user doesn't want to proceed with this tool use. The tool use was rejected."}]},
        ]
    )  # fmt: skip
    result = ws.rehydrate()
    assert file_paths(result) == ["app.py"]
    assert "x = 1" in by_path(result, "app.py").text


def test_no_workspace_roots_means_no_files(ws: Workspace, counter: TiktokenCounter) -> None:
    ws.read("ok.py", "x = 1\n")
    result = rehydrate(
        read_state=ws.state,
        kept_messages=[],
        settings=RehydrationSettings(),
        counter=counter,
        workspace_roots=[],
        plan=None,
    )
    assert result.attachments == []


@pytest.mark.parametrize(
    "render",
    [
        pytest.param(lambda text: text, id="raw-tool-result"),
        pytest.param(
            lambda text: "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.split("\n"), 1)),
            id="line-numbered-read-result",
        ),
    ],
)
def test_file_already_verbatim_in_kept_messages_is_skipped(ws: Workspace, render: Callable[[str], str]) -> None:
    text = "def kept():\n    return 42\n"
    ws.read("kept.py", text)
    ws.read("other.py", "y = 2\n")
    kept: list[Message] = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": render(text)}]},
    ]
    result = ws.rehydrate(kept)
    assert file_paths(result) == ["other.py"]
    assert reason_of(result, "kept.py") == "already verbatim in the kept messages"


def test_memory_index_already_in_the_system_prompt_is_not_repeated(ws: Workspace) -> None:
    index = SkillFile(str(ws.root / ".compact/memory/MEMORY.md"), "- [style](style.md): house style")
    with_system = ws.rehydrate(memory_indexes=[index], system_prompt=f"You are an agent.\n\n{index.text}\n")
    without = ws.rehydrate(memory_indexes=[index])
    assert [a.kind for a in with_system.attachments] == []
    assert [a.kind for a in without.attachments] == ["memory-index"]


def test_binary_file_is_skipped_with_a_reason(ws: Workspace) -> None:
    (ws.root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    ws.state.record_read("logo.png", "[image]")
    result = ws.rehydrate()
    assert file_paths(result) == []
    assert reason_of(result, "logo.png") == "binary file"


# -- ranking -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranker", "first"),
    [
        pytest.param(None, "read.py", id="recency-default"),
        pytest.param(boosted_ranker(edit_boost=1.0, focus_boost=0.0), "edited.py", id="edit-boost"),
        pytest.param(boosted_ranker(edit_boost=0.0, focus_boost=1.0), "focused.py", id="focus-boost"),
    ],
)
def test_rankers(ws: Workspace, ranker: Any, first: str) -> None:
    ws.read("focused.py", "a = 1\n")
    ws.state.open_document("focused.py", "a = 1\n", 1)
    ws.read("edited.py", "b = 1\n")
    ws.state.record_edit("edited.py", "toolu_e")
    ws.read("read.py", "c = 1\n")
    kwargs = {"ranker": ranker} if ranker is not None else {}
    assert file_paths(ws.rehydrate(**kwargs))[0] == first


def test_preview_candidates_say_why(ws: Workspace, counter: TiktokenCounter) -> None:
    for i in range(6):
        ws.read(f"f{i}.py", numbered(5, f"f{i}"))
    candidates = rehydration_candidates(
        ws.state,
        kept_messages=[],
        settings=RehydrationSettings(max_files=5),
        counter=counter,
        workspace_roots=[str(ws.root)],
    )
    wire = [rehydration_answer(RehydrationResult([], candidates, 0), RehydrationSettings())["candidates"]][0]
    assert [w["path"] for w in wire] == [f"f{i}.py" for i in range(5, -1, -1)]
    assert [w["included"] for w in wire] == [True] * 5 + [False]
    assert wire[0]["reason"] == "fits the budget" and wire[0]["score"] == 1.0
    assert wire[5]["reason"] == "beyond the 5-file limit"


# -- skills --------------------------------------------------------------------------------------------------


def skill_text() -> str:
    return (FIXTURES / "skills" / "release-notes" / "SKILL.md").read_text(encoding="utf-8")


def test_long_skill_is_truncated_with_the_note(ws: Workspace, counter: TiktokenCounter) -> None:
    long_text = skill_text() * 40
    assert counter.count_text(long_text) > 5_000
    result = ws.rehydrate(skills=[SkillFile("/skills/release-notes/SKILL.md", long_text)])
    (skill,) = result.attachments
    assert skill.text.rstrip().endswith(SKILL_TRUNCATED_NOTE.strip() + "\n</skill>")
    assert counter.count_text(skill.text) <= 5_000
    assert skill.text.startswith('<skill path="/skills/release-notes/SKILL.md" name="release-notes">\n---')


def test_short_skill_is_whole(ws: Workspace) -> None:
    result = ws.rehydrate(skills=[SkillFile("/skills/release-notes/SKILL.md", skill_text())])
    assert skill_text().strip() in result.attachments[0].text
    assert "truncated" not in result.attachments[0].text


def test_skills_share_a_total_budget(ws: Workspace, counter: TiktokenCounter) -> None:
    skills = [SkillFile(f"/skills/s{i}/SKILL.md", f"# skill {i}\n" + skill_text() * 40) for i in range(7)]
    result = ws.rehydrate(skills=skills)
    assert [a.path for a in result.attachments] == [f"/skills/s{i}/SKILL.md" for i in range(5)]
    assert result.skill_tokens <= 25_000


def test_skills_come_from_skill_reads_not_file_slots(ws: Workspace) -> None:
    ws.read(".claude/skills/release-notes/SKILL.md", skill_text())
    ws.read("app.py", "x = 1\n")
    skills = skills_from_read_state(ws.state, roots=AllowedRoots.of(str(ws.root)))
    assert [os.path.basename(os.path.dirname(s.path)) for s in skills] == ["release-notes"]
    result = ws.rehydrate(skills=skills)
    assert [a.kind for a in result.attachments] == ["file", "skill"]
    assert reason_of(result, ".claude/skills/release-notes/SKILL.md") == "a skill file: re-attached with the skills"
