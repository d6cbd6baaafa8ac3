"""Qwen Code's interactive TUI, driven in tmux as a user drives it, with our hook installed in the project by
``compact-lsp qwen-code install-hook``: files read, ``/compress`` typed, more files read, ``/compress`` typed again,
a turn that uses no file, ``/compress`` a third time.

Each turn reads, through Qwen's own tools, a region of a file too big for Qwen to put back whole and a small file
it puts back itself, and through the shell a file Qwen never puts back; a line of the region changes on disk while
Qwen writes its summary. Every assertion is about what Qwen sent to the stub: after each compaction our context is
in every request of the user's chat, once, from the first one on (Qwen awaited the hook); it holds the files of the
turns since the previous compaction, as they are on disk now, and none of the window before; and none of what Qwen
re-attached itself (the files it embedded whole) is in it again. After the third, with nothing to add, a note of
ours replaces the second block (Qwen would otherwise put it back, its files as they were then); so it does after
two ``/compress`` typed one after the other. A session quit and resumed with ``qwen --continue`` gets our block
back from its first request, its files as they are when it resumes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.qwen_code.chat_completions_stub import Reply, Request, system_text
from tests.qwen_code.qwen_cli import (
    OUR_BLOCK,
    QwenHome,
    is_main,
    is_summary,
    needs_qwen_code,
    our_block,
    reattached,
)
from tests.qwen_code.qwen_tui import QwenTui, is_side, last_user_text, tui_home
from tests.support.tmux_cli import tmux_missing

from compact_lsp.agents.qwen_code.hook import NOTHING_SINCE

pytestmark = [needs_qwen_code, pytest.mark.skipif(tmux_missing() is not None, reason=str(tmux_missing()))]

TURNS = {
    "review the handlers in big.py": (
        [("read_file", {"file_path": "src/big.py", "offset": 1000, "limit": 40}),
         ("run_shell_command", {"command": "cat notes.md"}),
         ("read_file", {"file_path": "src/small_a.py"})],
        "Reviewed the handlers.",
    ),
    "now the wire module": (
        [("read_file", {"file_path": "src/wire.py", "offset": 200, "limit": 30}),
         ("run_shell_command", {"command": "sed -n '1,12p' docs/guide.md"}),
         ("read_file", {"file_path": "src/small_b.py"})],
        "Reviewed the wire module.",
    ),
    "go on": ([], "Went on."),
    "thanks, that is all": ([], "You are welcome."),
}  # fmt: skip
"""The user's prompts: the model's tool calls, in order, then its answer."""
CHANGED = {
    1: ("src/big.py", "handler_1005 = respond(request, 1005)", "handler_1005 = respond(request, 1005, timeout=30)"),
    2: ("src/wire.py", "WIRE_210 = frame(210)", "WIRE_210 = frame(210, checksum=True)"),
}
"""What changes on disk while Qwen writes its n-th summary: (file, the line as read, the line as it is now)."""
RESUMED = ("handler_1020 = respond(request, 1020)", "handler_1020 = respond(request, 1020, retries=2)")
"""A line of the first region as read, and as it is when the session is resumed."""


def numbered(line: str, count: int) -> str:
    """``count`` lines, the ``{i}`` of line i its number."""
    return "".join(line.format(i=i) + "\n" for i in range(1, count + 1))


@pytest.fixture
def qwen(tmp_path: Path) -> Iterator[QwenHome]:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "docs").mkdir()
    # over Qwen's 5,000 tokens per re-attached file (about 170,000 and 50,000 characters): it names them only
    big = numbered("handler_{i} = respond(request, {i})  # line {i} <tag> & more", 3000)
    (project / "src" / "big.py").write_text(big)
    (project / "src" / "wire.py").write_text(numbered("WIRE_{i} = frame({i})  # a line of the wire module", 1000))
    (project / "src" / "small_a.py").write_text("SMALL_A = 'put back by Qwen itself'\n")
    (project / "src" / "small_b.py").write_text("SMALL_B = 'put back by Qwen itself too'\n")
    (project / "notes.md").write_text("# Notes\n\nNOTES_LINE: the handlers must answer within 30 seconds.\n")
    (project / "docs" / "guide.md").write_text(numbered("GUIDE_{i}: a line of the guide", 40))
    with tui_home(tmp_path, project) as home:
        yield home


def script(qwen: QwenHome) -> tuple[list[int], Callable[[Request], Reply]]:
    """The model's side (the summaries it wrote, counted) and Qwen's side requests answered with nothing."""
    summaries = [0]

    def answer(request: Request) -> Reply:
        if is_summary(request):
            summaries[0] += 1
            if summaries[0] in CHANGED:
                path, before, after = CHANGED[summaries[0]]
                file = qwen.project / path
                file.write_text(file.read_text().replace(before, after))  # the hook must send what is on disk now
            # its prompt's size as the API would count it: Qwen's own summarizer (a second /compress in a row)
            # takes the history it compacted to be that less its 1,000-token prompt, and refuses a summary that
            # would not shrink it ("Compression was not beneficial")
            return Reply(text=f"<state_snapshot>Summary {summaries[0]}: files were reviewed.</state_snapshot>",
                         prompt_tokens=max(1_000, len(json.dumps(request["messages"])) // 4))  # fmt: skip
        if is_side(request):
            return Reply(text="", prompt_tokens=2_000)  # nothing to suggest, nothing to remember
        prompt = last_user_text(request)
        turn = next((t for t in TURNS if t in prompt), None)
        if turn is None:
            return Reply(text="Nothing to do.", prompt_tokens=2_000)
        calls, final = TURNS[turn]
        messages = request["messages"]
        asked = max(n for n, m in enumerate(messages) if m.get("role") == "user")
        step = sum(1 for m in messages[asked:] if m.get("role") == "assistant")
        if step < len(calls):
            name, args = calls[step]
            if "file_path" in args:  # Qwen's read_file takes absolute paths only
                args = {**args, "file_path": str(qwen.project / args["file_path"])}
            return Reply(calls=[(name, args)], prompt_tokens=20_000)  # far below the threshold: only /compress
        return Reply(text=final, prompt_tokens=20_000)

    return summaries, answer


def user_chat(request: Request) -> bool:
    return is_main(request) and not is_side(request)


def assert_second_window(block: str) -> None:
    """The files of the second turn, as they are on disk now; nothing of the first turn's; not Qwen's own."""
    assert CHANGED[2][2] in block and CHANGED[2][1] + "  #" not in block
    assert "WIRE_205 = frame(205)" in block and "GUIDE_3: a line of the guide" in block
    assert "SMALL_B" not in block and "SMALL_A" not in block, "our context repeated a file Qwen re-attached"
    assert "big.py" not in block and "notes.md" not in block and "handler_" not in block


def test_in_the_tui_each_compress_gets_the_files_since_the_last_one(qwen: QwenHome) -> None:
    summaries, qwen.stub.script = script(qwen)
    tui = QwenTui(qwen)
    try:
        tui.start()
        first, second, chat, last = TURNS
        tui.turn(first, TURNS[first][1])
        tui.compress()
        tui.turn(second, TURNS[second][1])  # work between the compactions
        tui.compress()
        tui.turn(chat, TURNS[chat][1])  # no file at all
        tui.compress()
        tui.turn(last, TURNS[last][1])
    finally:
        tui.stop()
    assert qwen.stub.refused == []
    assert summaries == [3]

    requests = list(qwen.stub.requests)
    at = [i for i, r in enumerate(requests) if is_summary(r)]
    assert all(our_block(r) is None for r in requests[: at[0] + 1]), "our context reached the model before /compress"
    windows = [
        [r for r in requests[at[0] + 1 : at[1]] if user_chat(r)],
        [r for r in requests[at[1] + 1 : at[2]] if user_chat(r)],
    ]
    blocks = []
    for n, window in enumerate(windows, 1):
        assert window, f"Qwen sent nothing after compaction {n}"
        for request in window:  # Qwen awaited the hook: from the first request on, and once
            assert json.dumps(request).count(OUR_BLOCK) == 1, f"our context not once after compaction {n}"
            assert system_text(request).count("<qwen:session-start-context") == 1
        block = our_block(window[0])
        assert block is not None
        blocks.append(block)
    first_block, second_block = blocks
    project = qwen.project

    # Qwen's own re-attachment, measured in the TUI: of its own tools' files since the previous compaction, the
    # small one whole, the big one by name (the file read through the shell not at all)
    src = project / "src"
    assert reattached(windows[0][0]) == ({str(src / "small_a.py")}, {str(src / "big.py")})
    assert reattached(windows[1][0]) == ({str(src / "small_b.py")}, {str(src / "wire.py")})

    # after the first: the region read, as it is on disk now; the file read through the shell; not Qwen's own
    assert_first_window(first_block)

    # after the second: the files since the first, as they are now; not a copy of the first block
    assert_second_window(second_block)

    # after a turn that used no file: our note replaces the second block, which Qwen would otherwise put back with
    # its files as they were then
    after_chat = [r for r in requests[at[2] + 1 :] if user_chat(r)]
    assert after_chat
    for request in after_chat:
        assert OUR_BLOCK not in system_text(request) and system_text(request).count(NOTHING_SINCE) == 1

    answered = [line for line in qwen.hook_log.read_text().splitlines() if ": added " in line]
    assert len(answered) == 3 and all("'qwenFiles': 1, 'qwenByName': 1" in line for line in answered[:2])  # as Qwen


def assert_first_window(block: str) -> None:
    """The files of the first turn, as they are on disk now, not Qwen's own."""
    assert CHANGED[1][2] in block and CHANGED[1][1] + "  #" not in block
    assert "handler_1010 = respond(request, 1010)" in block and "handler_1500 " not in block
    assert "NOTES_LINE" in block
    assert "SMALL_A" not in block, "our context repeated a file Qwen re-attached"


def test_two_compress_with_nothing_between_in_the_tui_leave_the_note_not_the_first_block(qwen: QwenHome) -> None:
    """Files read, ``/compress`` typed twice in a row, a turn. The second compaction summarised nothing new: our
    note replaces the first block (which Qwen would otherwise put back, its files as they were then), whether or
    not Qwen had written the second compaction's record when the hook read the transcript (a race: the recorded
    case is the hook's unit test)."""
    summaries, qwen.stub.script = script(qwen)
    first, _, chat, _ = TURNS
    tui = QwenTui(qwen)
    try:
        tui.start()
        tui.turn(first, TURNS[first][1])
        tui.compress()
        tui.compress()
        tui.turn(chat, TURNS[chat][1])
    finally:
        tui.stop()
    assert qwen.stub.refused == []
    assert summaries == [2]  # the second, Qwen's own summarizer (its estimate after a compaction): is_summary

    requests = list(qwen.stub.requests)
    at = [i for i, r in enumerate(requests) if is_summary(r)]
    assert all(our_block(r) is None for r in requests[: at[0] + 1])
    assert not [r for r in requests[at[0] + 1 : at[1]] if user_chat(r)]  # nothing between the two
    after = [r for r in requests[at[1] + 1 :] if user_chat(r)]
    assert after
    for request in after:
        assert OUR_BLOCK not in system_text(request) and system_text(request).count(NOTHING_SINCE) == 1
    answered = [line for line in qwen.hook_log.read_text().splitlines() if ": added " in line]
    assert len(answered) == 2 and "'files': 2" in answered[0] and "'replaces'" in answered[1]


def test_a_session_resumed_in_the_tui_gets_our_context_back_then_the_files_since_its_last_compaction(
    qwen: QwenHome,
) -> None:
    """``/compress``, quit, a line of the region changes, ``qwen --continue``, more files, ``/compress`` again. The
    resumed session rebuilds Qwen's own summary and re-attached files from the transcript but not our block (Qwen
    kept the hook's answer in memory; measured on 0.24.4 before our hook answered ``resume``). Qwen runs
    ``SessionStart`` with source ``resume`` and awaits it: from the first request on, our block is back, its files
    as they are on disk now. The next compaction gets the files since the last one, read in the resumed
    session."""
    summaries, qwen.stub.script = script(qwen)
    first, second, chat, _ = TURNS
    tui = QwenTui(qwen)
    try:
        tui.start()
        tui.turn(first, TURNS[first][1])
        tui.compress()
    finally:
        tui.stop()
    big = qwen.project / "src" / "big.py"
    big.write_text(big.read_text().replace(RESUMED[0], RESUMED[1]))  # while no Qwen runs
    resumed_at = len(qwen.stub.requests)
    tui = QwenTui(qwen, name="resumed")
    try:
        tui.start("--continue")
        tui.turn(second, TURNS[second][1])
        tui.compress()
        tui.turn(chat, TURNS[chat][1])
    finally:
        tui.stop()
    assert qwen.stub.refused == []
    assert summaries == [2]

    requests = list(qwen.stub.requests)
    at = [i for i, r in enumerate(requests) if is_summary(r)][1]
    resumed = [r for r in requests[resumed_at:at] if user_chat(r)]
    assert resumed and json.dumps(resumed[0]).count("Summary 1: files were reviewed.") == 1  # the session, resumed
    src = qwen.project / "src"
    assert reattached(resumed[0]) == ({str(src / "small_a.py")}, {str(src / "big.py")})  # Qwen's own, rebuilt
    for request in resumed:  # ours too, from the first request on, once
        assert json.dumps(request).count(OUR_BLOCK) == 1
    block = our_block(resumed[0])
    assert block is not None
    assert_first_window(block)
    assert RESUMED[1] in block and RESUMED[0] + "  #" not in block  # as it is on disk now

    after = [r for r in requests[at + 1 :] if user_chat(r)]
    assert after and all(json.dumps(r).count(OUR_BLOCK) == 1 for r in after)
    block = our_block(after[0])
    assert block is not None
    assert_second_window(block)
