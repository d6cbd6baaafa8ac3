"""The strict Messages API stub as a process, for test code outside Python (the VS Code extension's tests).

Run from the repository root: ``python -m tests.support.messages_api_process``. The first line of stdin is the
script, a JSON object ``{"turns": [...], "summaries": [...]?}``; each turn is a list of content blocks (text,
tool_use), or ``{"blocks"?, "delayMs"?, "error"?: {"status", "type", "message"}, "repeat"?}`` (an error answered
``repeat`` times in a row, for the SDK's retries). With ``summaries``, a request without ``tools`` (the summariser's)
takes its answer from them, so background summaries never eat the agent's turns.

Stdout: first ``{"baseUrl": ...}``, then ``{"request": body}`` for every request received and
``{"refused": message}`` after one the API's rules refused (``messages_api_rules``). The stub runs until stdin
closes.
"""

from __future__ import annotations

import json
import sys
import threading
from collections import deque
from typing import Any

from tests.support.messages_api_stub import MessagesApiStub, StubResponse, api_error

RETRY_SOON = {"retry-after-ms": "10"}
"""The SDK retries 429 and 5xx: after 10 ms, not its back-off."""


class Script:
    """The scripted turns, handed out in order (a repeated error counts down in place)."""

    def __init__(self, turns: list[Any], summaries: list[Any] | None) -> None:
        self.turns: deque[Any] = deque(turns)
        self.summaries: deque[Any] | None = deque(summaries) if summaries is not None else None
        self._lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> StubResponse | None:
        queue = self.summaries if self.summaries is not None and body.get("tools") is None else self.turns
        with self._lock:
            if not queue:
                return None
            turn = queue[0]
            if isinstance(turn, dict) and turn.get("error") and int(turn.get("repeat", 1)) > 1:
                queue[0] = {**turn, "repeat": int(turn["repeat"]) - 1}
            else:
                queue.popleft()
        return response(turn)


def response(turn: Any) -> StubResponse:
    spec = {"blocks": turn} if isinstance(turn, list) else dict(turn)
    error = spec.get("error")
    if error:
        return api_error(int(error["status"]), str(error["type"]), str(error["message"]), headers=RETRY_SOON)
    blocks = list(spec.get("blocks") or [])
    stop = "tool_use" if any(b.get("type") == "tool_use" for b in blocks) else "end_turn"
    return StubResponse(content=blocks, stop_reason=stop, delay=float(spec.get("delayMs", 0)) / 1000)


def main() -> None:
    script_line = sys.stdin.readline()
    script = json.loads(script_line) if script_line.strip() else {}
    plan = Script(list(script.get("turns") or []), script.get("summaries"))
    out = threading.Lock()

    def emit(payload: dict[str, Any]) -> None:
        with out:
            sys.stdout.write(json.dumps(payload) + "\n")
            sys.stdout.flush()

    with MessagesApiStub() as stub:
        stub.responder = plan.answer
        stub.on_event = emit
        emit({"baseUrl": stub.base_url})
        sys.stdin.read()  # until the test closes stdin


if __name__ == "__main__":
    main()
