"""The real Qwen Code CLI (``@qwen-code/qwen-code``, installed by tests/qwen_code/setup.sh) against a loopback Chat
Completions stub, with our hook installed by ``compact-lsp qwen-code install-hook --user``.

A session reads a region of a file too big for Qwen to re-read after its summary, Qwen compacts (automatically,
when the stub reports a prompt over its threshold; or on ``/compress``), the region changes on disk while the
summary is written, and the session goes on. Every assertion is about what Qwen sent to the stub: our block is in
no request before the compaction, and the region as it is on disk now reaches the model after it, readable as the
block's header says (HTML-escaped: Qwen escapes ``<``/``>``, we escape ``&``).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.qwen_code.chat_completions_stub import ChatCompletionsStub, Reply, Request, system_text, text_of
from tests.qwen_code.qwen_cli import (
    OVER_THRESHOLD,
    QwenHome,
    is_main,
    is_summary,
    needs_qwen_code,
    our_block,
    reattached,
    summary_index,
)

from compact_lsp.agents.qwen_code.chat_log import read_chat
from compact_lsp.agents.qwen_code.hook import NOTHING_SINCE
from compact_lsp.agents.qwen_code.transcript import transcript_dir

pytestmark = needs_qwen_code

REGION = (1000, 40)
"""read_file's offset (0-based) and limit: lines 1001-1040."""
BEFORE = "handler_1005 = respond(request, 1005)  # line 1006 <tag> & more"
AFTER = "handler_1005 = respond(request, 1005, timeout=30)  # line 1006 <tag> & more"


def big_file() -> str:
    """About 170,000 characters (~42,000 tokens): over Qwen's 5,000 tokens per re-read file, so it names it only."""
    return "".join(f"handler_{i} = respond(request, {i})  # line {i + 1} <tag> & more\n" for i in range(3000))


@pytest.fixture
def qwen(tmp_path: Path) -> Iterator[QwenHome]:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "big.py").write_text(big_file())
    stub = ChatCompletionsStub(lambda request: Reply(text="unused")).start()
    home = QwenHome(tmp_path / "home", project, stub)
    home.write_settings()
    assert "installed the compact-lsp hook" in home.install()
    yield home
    stub.stop()


def change_region(qwen: QwenHome) -> None:
    big = qwen.project / "big.py"
    big.write_text(big.read_text().replace(BEFORE, AFTER))


def read_region(qwen: QwenHome) -> Reply:
    offset, limit = REGION
    args = {"file_path": str(qwen.project / "big.py"), "offset": offset, "limit": limit}
    return Reply(calls=[("read_file", args)], prompt_tokens=OVER_THRESHOLD)


def summary(qwen: QwenHome) -> Reply:
    change_region(qwen)  # while Qwen compacts: the hook must send what is on disk now
    return Reply(text="<state_snapshot>The user asked to review big.py lines 1001-1040.</state_snapshot>")


def test_after_an_automatic_compaction_the_current_region_reaches_the_model_from_the_second_request(
    qwen: QwenHome,
) -> None:
    steps = {"after": 0}

    def script(request: Request) -> Reply:
        if is_summary(request):
            return summary(qwen)
        if "review big.py" in text_of(request["messages"][-1].get("content")):
            return read_region(qwen)  # reported over the threshold: Qwen compacts before sending the tool's output
        steps["after"] += 1
        if steps["after"] == 1:
            # the model thinks while Qwen runs the hook, which it does not wait for after an automatic compaction
            assert qwen.wait_for_hook(), "our hook never answered"
            return Reply(calls=[("run_shell_command", {"command": "true"})], prompt_tokens=5_000)
        return Reply(text="Reviewed.", prompt_tokens=5_000)

    qwen.stub.script = script
    done = qwen.run("review big.py around line 1000")
    assert done.returncode == 0, done.stderr[-2000:]
    assert qwen.stub.refused == []

    at = summary_index(qwen.stub)
    before, after = qwen.stub.requests[:at], [r for r in qwen.stub.requests[at + 1 :] if is_main(r)]
    assert before and all(our_block(r) is None for r in qwen.stub.requests[: at + 1])
    assert len(after) >= 2
    assert our_block(after[0]) is None  # measured: Qwen does not await the hook after an automatic compaction
    for request in after[1:]:
        block = our_block(request)
        assert block is not None, "our context did not reach the model after the first request"
        assert AFTER in block and BEFORE not in block  # the region as it is on disk now, code as it is
        # as sent: Qwen escaped our < and >, we our & (were Qwen to stop, the block's key to reading it would lie)
        assert html.escape(AFTER, quote=False) in system_text(request)

    # where the editors follow it: Qwen named the project's folder as transcript_dir does (the path has "_")
    chats = Path(transcript_dir(os.path.realpath(qwen.project), str(qwen.home / ".qwen")))
    [written] = chats.glob("*.jsonl")
    assert [c.trigger for c in read_chat(str(written)).compactions] == ["token_limit"]


def compressing(qwen: QwenHome) -> Callable[[Request], Reply]:
    """The model of a session compacted only by ``/compress``: the region read far below the threshold."""

    def script(request: Request) -> Reply:
        if is_summary(request):
            # its prompt's size: Qwen's own summarizer (the second /compress in a row, after its estimate) refuses a
            # summary that would not shrink the history it takes to be that less 1,000 tokens
            reply = summary(qwen)
            reply.prompt_tokens = max(1_000, len(json.dumps(request["messages"])) // 4)
            return reply
        if "review big.py" in text_of(request["messages"][-1].get("content")):
            reply = read_region(qwen)
            reply.prompt_tokens = 9_000  # far below the threshold: only /compress compacts
            return reply
        return Reply(text="Reviewed.", prompt_tokens=5_000)

    return script


def test_after_compress_the_current_region_reaches_the_next_request(qwen: QwenHome) -> None:
    qwen.stub.script = compressing(qwen)
    qwen.converse(["review big.py around line 1000", "/compress", "what changed in the region?"])

    at = summary_index(qwen.stub)
    assert all(our_block(r) is None for r in qwen.stub.requests[: at + 1])
    after = [r for r in qwen.stub.requests[at + 1 :] if is_main(r)]
    assert after, "Qwen sent nothing after /compress"
    for request in after:  # after /compress Qwen awaits the hook: from the first request on
        block = our_block(request)
        assert block is not None and AFTER in block and BEFORE not in block


def test_two_compress_with_nothing_between_leave_the_note_not_the_first_block(qwen: QwenHome) -> None:
    """Headless, where Qwen writes no command records: the second ``/compress`` summarised nothing new, and every
    request after it carries our note instead of the first block (which Qwen would otherwise keep)."""
    qwen.stub.script = compressing(qwen)
    qwen.converse(["review big.py around line 1000", "/compress", "/compress", "go on"])

    at = [i for i, r in enumerate(qwen.stub.requests) if is_summary(r)]
    assert len(at) == 2 and not [r for r in qwen.stub.requests[at[0] + 1 : at[1]] if is_main(r)]
    after = [r for r in qwen.stub.requests[at[1] + 1 :] if is_main(r)]
    assert after
    for request in after:
        assert our_block(request) is None and system_text(request).count(NOTHING_SINCE) == 1


@pytest.mark.parametrize("told", ["environment", "settings"])
def test_with_qwen_told_to_re_read_one_file_our_context_has_the_others(qwen: QwenHome, told: str) -> None:
    """``QWEN_COMPACT_MAX_RECENT_FILES=1`` where Qwen runs, or ``model.chatCompression.maxRecentFilesToRetain: 1``
    in the user's settings: after ``/compress`` Qwen re-reads only the file read last; the hook (Qwen's child, with
    its environment) finds the same count and adds the one before it (assuming Qwen's default of five, it would
    leave it out as Qwen's, and the model would get it from neither)."""
    if told == "environment":
        qwen.more_env["QWEN_COMPACT_MAX_RECENT_FILES"] = "1"
    else:
        user = qwen.home / ".qwen" / "settings.json"
        settings = json.loads(user.read_text())  # our hook is in it already
        settings["model"]["chatCompression"] = {"maxRecentFilesToRetain": 1}
        user.write_text(json.dumps(settings, indent=2))
    (qwen.project / "first.py").write_text("FIRST = 'read first, re-read by nobody but us'\n")
    (qwen.project / "second.py").write_text("SECOND = 'read last, re-read by Qwen itself'\n")
    reads = [str(qwen.project / "first.py"), str(qwen.project / "second.py")]

    def script(request: Request) -> Reply:
        if is_summary(request):
            return Reply(text="<state_snapshot>The user asked to review two modules.</state_snapshot>")
        messages = request["messages"]
        asked = max(n for n, m in enumerate(messages) if m.get("role") == "user")
        if "review the two modules" not in text_of(messages[asked].get("content")):
            return Reply(text="Reviewed.", prompt_tokens=5_000)
        step = sum(1 for m in messages[asked:] if m.get("role") == "assistant")
        if step < len(reads):
            return Reply(calls=[("read_file", {"file_path": reads[step]})], prompt_tokens=9_000)
        return Reply(text="Both reviewed.", prompt_tokens=9_000)

    qwen.stub.script = script
    qwen.converse(["review the two modules", "/compress", "go on"])

    at = summary_index(qwen.stub)
    after = [r for r in qwen.stub.requests[at + 1 :] if is_main(r)]
    assert after
    assert reattached(after[0]) == ({reads[1]}, set())  # Qwen, as told: the last file only
    for request in after:
        block = our_block(request)
        assert block is not None and "FIRST = 'read first" in block and "SECOND = " not in block
