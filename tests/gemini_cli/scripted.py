"""The scripted session both real-TUI tests run (test_real_gemini_cli.py: Gemini compresses by itself;
test_real_gemini_typed_compress.py: the user types ``/compress``), and what they assert of it.

Turn 1 reads lines 100-120 of a 9,000-line ``big.py``; then Gemini CLI compresses (``typed`` or not); line 101 changes
on disk; turn 2 reads ``small.py``; turn 3 asks again. Five model requests in all, the compression between the
second and the third. ``same_but_ours`` compares a run with our hook against the bare run of the same script.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.gemini_cli.gemini_cli import OVER_THRESHOLD, GeminiHome
from tests.gemini_cli.gemini_stub import Reply, Request, call, is_compression, text

from compact_lsp.agents.gemini_cli.hook import HEADER
from compact_lsp.agents.gemini_cli.request import TAG

SUMMARY = "<state_snapshot>The user asked what step_33 returns; big.py lines 100-120 were read.</state_snapshot>"
CHANGED = "    return 3300  # changed on disk after the read"
OURS = f"<{TAG}>"
UNDER_THRESHOLD = 6_000
TYPED_DONE = "Chat history compressed from"
"""What Gemini CLI 0.61.0 shows once a typed ``/compress`` is done ("… from 6000 to 150 tokens.")."""


def script(reported: int) -> Callable[[Request], Reply]:
    """The stub's answers; ``reported``: the prompt tokens turn 1's answer reports (past the threshold, Gemini CLI
    compresses at the start of turn 2)."""
    state = {"n": 0}

    def answer(request: Request) -> Reply:
        if is_compression(request):
            return [text(SUMMARY)], 1_000
        if request["method"] != "streamGenerateContent":  # its utility calls (a one-line summary)
            return [text('{"title": "Reading big.py"}')], 100
        state["n"] += 1
        steps: dict[int, Reply] = {
            1: ([call("read_file", {"file_path": "big.py", "start_line": 100, "end_line": 120})], 5_000),
            2: ([text("Read it.")], reported),
            3: ([call("read_file", {"file_path": "small.py"})], UNDER_THRESHOLD),
        }
        return steps.get(state["n"], ([text(f"Answer {state['n']}.")], UNDER_THRESHOLD))

    return answer


def big_file() -> str:
    return "".join(f"def step_{i}():\n    return {i}\n\n" for i in range(3000))


def type_compress(gemini: GeminiHome) -> None:
    """The user types ``/compress`` and waits until Gemini CLI says it is done."""

    def compressions() -> int:
        return sum(1 for r in gemini.stub.requests if is_compression(r))

    before = compressions()
    gemini.type("/compress")
    gemini.wait_for("the typed /compress", lambda: compressions() == before + 2 and TYPED_DONE in gemini.screen())


def session(gemini: GeminiHome, name: str, *, typed: bool = False) -> list[Request]:
    """The scripted session in a fresh TUI; the model requests it made (the compression's own calls aside).
    ``typed``: the user types ``/compress`` after turn 1; otherwise turn 1 reports a prompt past the threshold and
    Gemini compresses by itself as turn 2 starts."""
    (gemini.project / "big.py").write_text(big_file())
    gemini.stub.script = script(UNDER_THRESHOLD if typed else OVER_THRESHOLD)
    gemini.stub.requests.clear()
    gemini.name = name
    gemini.start()
    gemini.turn("Read lines 100 to 120 of big.py", 2, "Read it.")
    if typed:
        type_compress(gemini)
    lines = big_file().splitlines(keepends=True)
    lines[100] = CHANGED + "\n"  # line 101, in the region read: "return 33" before
    (gemini.project / "big.py").write_text("".join(lines))
    gemini.turn("What does step_33 return now", 2, "Answer 4.")
    gemini.turn("And step_34", 1, "Answer 5.")
    gemini.stop()
    assert not gemini.stub.refused, gemini.stub.refused

    methods = [(r["method"], is_compression(r)) for r in gemini.stub.requests if r["method"] != "countTokens"]
    streamed = [n for n, (method, _) in enumerate(methods) if method == "streamGenerateContent"]
    compressions = [n for n, (_, compression) in enumerate(methods) if compression]
    assert len(compressions) == 2  # the summary and its verification, once
    assert streamed[1] < compressions[0] < compressions[1] < streamed[2], methods  # between turns 1 and 2
    return gemini.stub.model_requests()


def texts(request: Request) -> str:
    return json.dumps(request["body"]["contents"])


def without_ids(content: dict[str, Any]) -> dict[str, Any]:
    """A content with the CLI's generated call ids left out (they hold the time)."""
    parts = []
    for part in content["parts"]:
        kind = next(iter(k for k in part if k in ("functionCall", "functionResponse")), None)
        parts.append({**part, kind: {k: v for k, v in part[kind].items() if k != "id"}} if kind else part)
    return {**content, "parts": parts}


def same_but_ours(hooked: list[Request], bare: list[Request], listed: tuple[str, str] = ("", "")) -> None:
    """Nothing of ours before the compression; after it, on every request, our block once after the summary with
    the region as it is on disk now, and everything else as the bare run sent it (``listed``: what the session
    context lists beside, replaced by what the bare run listed)."""
    assert len(hooked) == len(bare) == 5
    for request in hooked[:2]:  # before the compression: nothing of ours
        assert OURS not in texts(request) and HEADER not in texts(request)
    for n, (ours, theirs) in enumerate(zip(hooked[2:], bare[2:], strict=True), start=3):
        first, *rest = ours["body"]["contents"]
        bare_first, *bare_rest = theirs["body"]["contents"]
        assert SUMMARY in json.dumps(bare_first) and OURS not in texts(theirs)
        assert texts(ours).count(OURS) == texts(ours).count(HEADER) == 1, f"request {n}: our block once"
        # the summary's content: its text parts as one (what BeforeModel answers make of a content), ours after
        (part,) = first["parts"]
        text = part["text"].replace(*listed) if listed[0] else part["text"]
        joined = "".join(p["text"] for p in bare_first["parts"])
        assert first["role"] == bare_first["role"] == "user"
        assert text.startswith(joined + "\n\n" + OURS), f"request {n}"
        block = text[len(joined) :]
        assert CHANGED in block, f"request {n}: the region as it is on disk now"
        assert "return 33\n" not in block
        # every other content as the bare run sent it: count, order, roles, tool calls and responses
        assert [without_ids(c) for c in rest] == [without_ids(c) for c in bare_rest], f"request {n}"
        for key in ("systemInstruction", "tools", "generationConfig"):
            assert ours["body"].get(key) == theirs["body"].get(key), f"request {n}: {key}"
    assert any("functionResponse" in p for c in hooked[3]["body"]["contents"] for p in c["parts"])
