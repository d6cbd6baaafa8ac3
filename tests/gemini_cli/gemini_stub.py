"""A loopback stub of the Gemini API as Gemini CLI calls it (``POST /v1beta/models/<model>:<method>``).

It records every request (its method and body) and answers from a script: a function of the request that returns
the model's parts and the prompt tokens its usage reports. It refuses, as the real API does (400
``INVALID_ARGUMENT``), what the API would not take: no API key, contents that are not a non-empty list of
``user``/``model`` turns with non-empty parts, a part with none or two of its data fields, function responses whose
count differs from the calls of the model turn before them. The tests assert from what the CLI sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Request = dict[str, Any]
"""``{"method": "streamGenerateContent" | "generateContent" | "countTokens", "model": ..., "body": {...}}``."""
Reply = tuple[list[dict[str, Any]], int]
"""The model's parts and the prompt tokens its usage reports."""

DATA_FIELDS = (
    "text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult",
)  # fmt: skip
SUMMARY_ASK = "generate the updated <state_snapshot>"
VERIFY_ASK = "Critically evaluate the <state_snapshot>"


def text(value: str) -> dict[str, Any]:
    return {"text": value}


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


def texts(content: dict[str, Any]) -> str:
    return "".join(str(p.get("text", "")) for p in content.get("parts", []) if isinstance(p, dict))


def last_user_text(request: Request) -> str:
    users = [c for c in request["body"].get("contents", []) if c.get("role") == "user"]
    return texts(users[-1]) if users else ""


def is_compression(request: Request) -> bool:
    """The summary call or its verification (Gemini CLI makes both for one compression)."""
    return SUMMARY_ASK in last_user_text(request) or VERIFY_ASK in last_user_text(request)


def refusal(body: Any) -> str | None:
    """Why the real API would answer 400, or None."""
    if not isinstance(body, dict):
        return "the request body is not a JSON object"
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return "contents is not specified"
    calls_before = 0
    for n, content in enumerate(contents):
        if not isinstance(content, dict) or content.get("role") not in ("user", "model"):
            return f"contents[{n}]: please use a valid role: user, model"
        parts = content.get("parts")
        if not isinstance(parts, list) or not parts:
            return f"contents[{n}].parts must not be empty"
        for m, part in enumerate(parts):
            present = [k for k in DATA_FIELDS if isinstance(part, dict) and k in part]
            if len(present) != 1:
                return f"contents[{n}].parts[{m}]: exactly one data field is required, found {present}"
        responses = sum(1 for p in parts if "functionResponse" in p)
        if responses and responses != calls_before:
            return (
                "Please ensure that the number of function response parts is equal to the number of function call "
                f"parts of the function call turn (contents[{n}]: {responses} for {calls_before})"
            )
        calls_before = sum(1 for p in parts if "functionCall" in p) if content["role"] == "model" else 0
    return None


@dataclass
class GeminiStub:
    script: Callable[[Request], Reply]
    requests: list[Request] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def model_requests(self) -> list[Request]:
        """The conversation's requests to the model (streamed), without the compression's own calls."""
        return [r for r in self.requests if r["method"] == "streamGenerateContent" and not is_compression(r)]

    def start(self) -> GeminiStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _error(self, status: int, message: str, kind: str = "INVALID_ARGUMENT") -> None:
                stub.refused.append(message)
                self._answer(status, {"error": {"code": status, "message": message, "status": kind}})

            def do_GET(self) -> None:
                self._error(404, f"no such resource: {self.path}", "NOT_FOUND")

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                path, _, _ = self.path.partition("?")
                model, _, method = path.rpartition("/")[2].partition(":")
                if not path.startswith("/v1beta/models/") or not model:
                    return self._error(404, f"no such resource: {self.path}", "NOT_FOUND")
                if not self.headers.get("x-goog-api-key"):
                    return self._error(403, "Method doesn't allow unregistered callers", "PERMISSION_DENIED")
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    return self._error(400, "Invalid JSON payload received.")
                why = refusal(body)
                if why is not None:
                    return self._error(400, why)
                request = {"method": method, "model": model, "body": body}
                with stub._lock:
                    stub.requests.append(request)
                if method == "countTokens":
                    return self._answer(200, {"totalTokens": len(raw) // 4})
                if method not in ("streamGenerateContent", "generateContent"):
                    return self._error(404, f"no such method: {method}", "NOT_FOUND")
                parts, prompt_tokens = stub.script(request)
                response = {
                    "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {
                        "promptTokenCount": prompt_tokens,
                        "candidatesTokenCount": 20,
                        "totalTokenCount": prompt_tokens + 20,
                    },
                    "modelVersion": model,
                }
                if method == "generateContent":
                    return self._answer(200, response)
                data = f"data: {json.dumps(response)}\r\n\r\n".encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
