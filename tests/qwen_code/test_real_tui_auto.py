"""Qwen Code's interactive TUI compacting by itself, driven in tmux as a user drives it, with our hook installed in
the project by ``compact-lsp qwen-code install-hook``.

The user asks for a review; the model reads a region of a file too big for Qwen to put back whole, and the stub
reports that request over Qwen's threshold, so Qwen compacts in the middle of the turn, before it sends the read's
output; the region changes on disk while Qwen writes its summary. The turn goes on (a shell call, an answer), then
the user types another. Every assertion is about what Qwen sent to the stub.

Measured (0.24.4): as in print mode, Qwen starts our hook after an automatic compaction and does not wait for it,
so the request it sends right after compacting carries none of our context; the next ones carry it, once. The
model's thinking time is the stub holding its answer to that first request until our hook has answered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.qwen_code.chat_completions_stub import Reply, Request
from tests.qwen_code.qwen_cli import (
    OUR_BLOCK,
    OVER_THRESHOLD,
    QwenHome,
    is_main,
    is_summary,
    needs_qwen_code,
    our_block,
)
from tests.qwen_code.qwen_tui import QwenTui, is_side, last_user_text, tui_home
from tests.support.tmux_cli import tmux_missing

pytestmark = [needs_qwen_code, pytest.mark.skipif(tmux_missing() is not None, reason=str(tmux_missing()))]

REVIEW = ("review the handlers around line 1000", "Reviewed the handlers.")
NEXT = ("what changed in them?", "Line 1005 has a timeout now.")
BEFORE = "handler_1005 = respond(request, 1005)  # line 1005"
AFTER = "handler_1005 = respond(request, 1005, timeout=30)  # line 1005"
COMPACTED = "This conversation approached the input token limit"
"""What the TUI shows once Qwen compacted by itself."""


@pytest.fixture
def qwen(tmp_path: Path) -> Iterator[QwenHome]:
    project = tmp_path / "proj"
    project.mkdir()
    # about 150,000 characters: over Qwen's 5,000 tokens per re-attached file, so it names it only
    big = "".join(f"handler_{i} = respond(request, {i})  # line {i}\n" for i in range(1, 3001))
    (project / "big.py").write_text(big)
    with tui_home(tmp_path, project) as home:
        yield home


def test_in_the_tui_after_qwen_compacts_by_itself_our_context_reaches_the_second_request(qwen: QwenHome) -> None:
    steps: list[bool] = []
    """The user's chat's requests of the first turn, each with whether our hook had answered when it came."""

    def script(request: Request) -> Reply:
        if is_summary(request):
            big = qwen.project / "big.py"
            big.write_text(big.read_text().replace(BEFORE, AFTER))  # while Qwen compacts: the hook reads it now
            return Reply(text="<state_snapshot>The user asked to review the handlers.</state_snapshot>")
        if is_side(request):
            return Reply(text="", prompt_tokens=2_000)  # nothing to suggest, nothing to remember
        if NEXT[0] in last_user_text(request):
            return Reply(text=NEXT[1], prompt_tokens=9_000)
        steps.append(qwen.wait_for_hook() if len(steps) == 1 else False)  # the model thinks; Qwen runs the hook
        if len(steps) == 1:
            args = {"file_path": str(qwen.project / "big.py"), "offset": 999, "limit": 40}
            return Reply(calls=[("read_file", args)], prompt_tokens=OVER_THRESHOLD)  # Qwen compacts before the next
        if len(steps) == 2:
            return Reply(calls=[("run_shell_command", {"command": "true"})], prompt_tokens=9_000)
        return Reply(text=REVIEW[1], prompt_tokens=9_000)

    qwen.stub.script = script
    tui = QwenTui(qwen)
    try:
        tui.start()
        tui.turn(*REVIEW)
        assert COMPACTED in tui.history(), "the TUI did not say Qwen compacted"
        tui.turn(*NEXT)
    finally:
        tui.stop()
    assert qwen.stub.refused == []
    assert steps == [False, True, False], "our hook did not answer while the model thought"

    requests = list(qwen.stub.requests)
    (at,) = [i for i, r in enumerate(requests) if is_summary(r)]
    assert at == 1, "Qwen did not compact right after the request reported over its threshold"
    assert all(our_block(r) is None for r in requests[:at])
    after = [r for r in requests[at + 1 :] if is_main(r) and not is_side(r)]
    assert [NEXT[0] in last_user_text(r) for r in after] == [False, False, True]  # the turn's two, then the user's
    assert our_block(after[0]) is None, "Qwen awaited the hook after compacting by itself"
    for request in after[1:]:  # from the second request on, once, with the region as it is on disk now
        assert json.dumps(request).count(OUR_BLOCK) == 1
        block = our_block(request)
        assert block is not None and AFTER in block and BEFORE not in block
        assert "handler_1010 = respond(request, 1010)" in block and "handler_1500 " not in block

    (answered,) = [line for line in qwen.hook_log.read_text().splitlines() if ": added " in line]
    assert "'qwenFiles': 0, 'qwenByName': 1" in answered  # Qwen named big.py only; the region is ours
