"""The real Gemini CLI in its TUI, compressed by the user: ``/compress`` typed after turn 1 (Gemini CLI 0.61.0's
``compressCommand``, aliases ``/summarize`` and ``/compact``), the prompt far under ``model.compressionThreshold``.

The scripted session of scripted.py, bare then with our ``BeforeModel`` hook installed by ``compact-lsp gemini-cli
install-hook --user``: turn 1 reads a region of a big file; the user types ``/compress``; the region changes on
disk; turn 2 reads a small file; turn 3 asks again. From the stub's recorded requests: nothing of ours before the
compression, our block once after the summary on the first request after it (and every later one) with the region
as it is now, and every request otherwise the bare run's.
"""

from __future__ import annotations

import json

from tests.gemini_cli.gemini_cli import GeminiHome, needs_gemini_cli
from tests.gemini_cli.scripted import same_but_ours, session

pytestmark = needs_gemini_cli


def session_file(gemini: GeminiHome) -> list[dict[str, object]]:
    (path,) = (gemini.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_after_a_typed_compress_our_context_joins_the_summary_and_nothing_else_changes(gemini: GeminiHome) -> None:
    bare = session(gemini, "bare", typed=True)
    assert "installed" in gemini.cli("install-hook", "--user")
    for old in (gemini.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"):
        old.unlink()  # the bare run's
    same_but_ours(session(gemini, "user", typed=True), bare)
    assert "added" in gemini.hook_log.read_text()
    # the session file says it was typed: the compression's list, then an info record with nothing in it
    records = session_file(gemini)
    (at,) = [n for n, r in enumerate(records) if "Got it." in json.dumps(r.get("$set", {}))]
    assert records[at + 1].get("type") == "info" and records[at + 1].get("content") == ""
