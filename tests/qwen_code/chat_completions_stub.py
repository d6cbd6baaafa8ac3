"""A loopback stub of the OpenAI Chat Completions API as Qwen Code calls it (``POST /v1/chat/completions``).

It records every request it accepts (``requests``) and answers from a script: a function of the request that
returns the assistant's message (text or tool calls) and the prompt tokens its usage reports. The tests assert
from what Qwen Code sent.

As strict as the API (``refusal``): a request the real service refuses gets its 400 ``invalid_request_error`` with
its words and is recorded in ``refused``, never answered from the script: no bearer key, a body that is not a JSON
object, no model, no messages, an unknown role, a ``tool`` message that answers no pending call or a call left
unanswered before the next message, tool calls without ``tools``, a tool call whose arguments are not a JSON
string, ``stream_options`` without ``stream``, ``max_tokens`` that is not a positive integer. Usage is sent on a
stream only when ``stream_options.include_usage`` asked for it, as the API does.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Request = dict[str, Any]
ROLES = ("system", "developer", "user", "assistant", "tool")


@dataclass
class Reply:
    """The assistant's answer: text, or tool calls ``(name, arguments)``; and the prompt tokens to report."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    prompt_tokens: int = 1_000


def text_of(content: Any) -> str:
    """A message's content as text (a string, or text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def system_text(request: Request) -> str:
    return "\n".join(text_of(m.get("content")) for m in request["messages"] if m.get("role") == "system")


def _invalid(message: str, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}


def refusal(headers: dict[str, str], body: Any) -> tuple[int, dict[str, Any]] | None:
    """The API's answer to a request it refuses (status, body), or None when it would serve it."""
    if not headers.get("authorization", "").startswith("Bearer ") or len(headers["authorization"]) <= 7:
        return 401, {"error": {"message": "You didn't provide an API key.", "type": "invalid_request_error",
                               "param": None, "code": None}}  # fmt: skip
    if not isinstance(body, dict):
        return 400, _invalid("We could not parse the JSON body of your request.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        return 400, _invalid("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return 400, _invalid("[] is too short - 'messages'", "messages")
    if "stream_options" in body and not body.get("stream"):
        return 400, _invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
    limit = body.get("max_tokens")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        return 400, _invalid(f"Invalid 'max_tokens': integer below minimum value. Got {limit!r}", "max_tokens")
    tools = body.get("tools") or []
    if not isinstance(tools, list) or any(not isinstance(t, dict) or t.get("type") != "function" for t in tools):
        return 400, _invalid("Invalid 'tools': each tool must be of type 'function'.", "tools")
    pending: list[str] = []
    for n, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            return 400, _invalid(f"Invalid value: '{role}'. Supported values are: {ROLES}.", f"messages[{n}].role")
        assert isinstance(message, dict)
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                return 400, _invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.", f"messages.[{n}].role",
                )  # fmt: skip
            pending.remove(call_id)
            continue
        if pending:
            return 400, _invalid(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(pending)}",
                f"messages.[{n}].role",
            )  # fmt: skip
        calls = message.get("tool_calls")
        if calls:
            if role != "assistant" or not tools:
                return 400, _invalid("Invalid 'tool_calls': tools must be provided.", f"messages[{n}].tool_calls")
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                arguments = function.get("arguments") if isinstance(function, dict) else None
                if not isinstance(call.get("id"), str) or not isinstance(arguments, str):
                    return 400, _invalid("Invalid 'tool_calls': each needs an id and string arguments.")
                try:
                    json.loads(arguments)
                except ValueError:
                    return 400, _invalid("Invalid 'tool_calls': arguments are not JSON.")
                pending.append(call["id"])
        elif role != "assistant" and message.get("content") in (None, ""):
            return 400, _invalid(f"Invalid 'messages[{n}].content': empty.", f"messages[{n}].content")
    return None


class ChatCompletionsStub:
    def __init__(self, script: Callable[[Request], Reply]) -> None:
        self.script = script
        self.requests: list[Request] = []
        self.refused: list[tuple[int, Request]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> ChatCompletionsStub:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._json(
                        404, {"error": {"message": f"Invalid URL (POST {self.path})", "type": "invalid_request_error"}}
                    )
                    return
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                refused = refusal(headers, body)
                if refused is not None:
                    with stub.lock:
                        stub.refused.append((refused[0], body if isinstance(body, dict) else {}))
                    self._json(*refused)
                    return
                assert isinstance(body, dict)
                with stub.lock:
                    stub.requests.append(body)
                reply = stub.script(body)
                self._answer(body, reply)

            def _answer(self, body: Request, reply: Reply) -> None:
                model = body["model"]
                calls = [
                    {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                     "function": {"name": name, "arguments": json.dumps(args)}}
                    for name, args in reply.calls
                ]  # fmt: skip
                finish = "tool_calls" if calls else "stop"
                usage = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": 20,
                         "total_tokens": reply.prompt_tokens + 20}  # fmt: skip
                if not body.get("stream"):
                    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
                    if calls:
                        message["tool_calls"] = calls
                    self._json(200, {"id": "chatcmpl-stub", "object": "chat.completion", "created": 1,
                                     "model": model, "usage": usage, "choices": [
                                         {"index": 0, "message": message, "finish_reason": finish}]})  # fmt: skip
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def chunk(delta: dict[str, Any], finish_reason: str | None, **extra: Any) -> bytes:
                    data = {
                        "id": "chatcmpl-stub",
                        "object": "chat.completion.chunk",
                        "created": 1,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                        **extra,
                    }
                    return f"data: {json.dumps(data)}\n\n".encode()  # fmt: skip

                out = chunk({"role": "assistant", "content": reply.text}, None)
                for n, call in enumerate(calls):
                    out += chunk({"tool_calls": [{"index": n, **call}]}, None)
                out += chunk({}, finish)
                if (body.get("stream_options") or {}).get("include_usage"):
                    data = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 1, "model": model,
                            "choices": [], "usage": usage}  # fmt: skip
                    out += f"data: {json.dumps(data)}\n\n".encode()
                self.wfile.write(out + b"data: [DONE]\n\n")

        return Handler
