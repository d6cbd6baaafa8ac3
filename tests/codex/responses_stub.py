"""A loopback stub of the OpenAI Responses API as Codex CLI calls it (``POST /v1/responses``, streamed SSE).

It records every request body and answers from a script: a function of the request that returns the output
items of the response and the input-token usage to report. The tests assert from what Codex sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Request = dict[str, Any]
Reply = tuple[list[dict[str, Any]], int]
"""The response's output items and the input tokens its usage reports."""

COMPACTION_MARK = "CONTEXT CHECKPOINT COMPACTION"


def message(text: str) -> dict[str, Any]:
    return {
        "type": "message", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }  # fmt: skip


def exec_command(call_id: str, cmd: str) -> dict[str, Any]:
    arguments = json.dumps({"cmd": cmd, "yield_time_ms": 2000})
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "exec_command",
        "arguments": arguments,
        "status": "completed",
    }


def apply_patch(call_id: str, patch: str) -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "call_id": call_id,
        "name": "apply_patch",
        "input": patch,
        "status": "completed",
    }


def texts(item: dict[str, Any]) -> str:
    """All text of one input item (a message's parts, a tool output)."""
    content = item.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    output = item.get("output")
    return output if isinstance(output, str) else json.dumps(output) if output is not None else ""


def is_compaction(request: Request) -> bool:
    last_user = [i for i in request.get("input", []) if i.get("type") == "message" and i.get("role") == "user"]
    return bool(last_user) and COMPACTION_MARK in texts(last_user[-1])


@dataclass
class ResponsesStub:
    script: Callable[[Request], Reply]
    requests: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> ResponsesStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # models list and the like: nothing here
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                stub.requests.append(body)
                items, input_tokens = stub.script(body)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                stub._stream(self, len(stub.requests), items, input_tokens)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @staticmethod
    def _stream(handler: BaseHTTPRequestHandler, n: int, items: list[dict[str, Any]], input_tokens: int) -> None:
        def event(kind: str, data: dict[str, Any]) -> None:
            handler.wfile.write(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode())
            handler.wfile.flush()

        rid = f"resp_{n}"
        event("response.created", {"response": {"id": rid, "status": "in_progress", "output": []}})
        done = []
        for index, item in enumerate(items):
            item = {"id": f"item_{n}_{index}", **item}
            event("response.output_item.added", {"output_index": index, "item": item})
            if item["type"] == "message":
                delta = texts(item)
                where = {"output_index": index, "content_index": 0, "item_id": item["id"]}
                event("response.output_text.delta", {**where, "delta": delta})
            event("response.output_item.done", {"output_index": index, "item": item})
            done.append(item)
        usage = {
            "input_tokens": input_tokens, "output_tokens": 20, "total_tokens": input_tokens + 20,
            "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0},
        }  # fmt: skip
        event("response.completed", {"response": {"id": rid, "status": "completed", "output": done, "usage": usage}})
