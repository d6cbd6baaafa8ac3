"""The protocol's one definition, docs/protocol.schema.json, as the tests check the real server against it.

``ProtocolSchema.check_result`` validates what a custom request or a ``workspace/executeCommand`` answered,
``check_notification`` what the server notified; methods outside the protocol (LSP's own) pass unchecked.
``watch_client`` hooks both into a pytest-lsp client so that every response and notification of an end-to-end
test is validated: a response that does not match fails the request that got it, a notification that does not
match is kept in ``client.protocol_problems`` (the fixtures fail the test on it when the server stops).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json"


class ProtocolMismatch(AssertionError):
    """A server message that the protocol schema does not allow."""


class ProtocolSchema:
    def __init__(self, path: Path = SCHEMA_PATH) -> None:
        self.schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(self.schema)
        self._id = str(self.schema["$id"])
        self._registry: Registry[Any] = Registry().with_resource(self._id, Resource.from_contents(self.schema))
        self._validators: dict[str, Draft202012Validator] = {}

    @property
    def requests(self) -> dict[str, Any]:
        return dict(self.schema["properties"]["requests"]["properties"])

    @property
    def commands(self) -> dict[str, Any]:
        return dict(self.schema["properties"]["commands"]["properties"])

    @property
    def notifications(self) -> dict[str, Any]:
        return dict(self.schema["properties"]["notifications"]["properties"])

    def validator(self, *pointer: str) -> Draft202012Validator:
        """The validator for the schema at ``pointer`` (unescaped parts) inside the protocol schema."""
        escaped = "/".join(part.replace("~", "~0").replace("/", "~1") for part in pointer)
        ref = f"{self._id}#/{escaped}"
        validator = self._validators.get(ref)
        if validator is None:
            validator = Draft202012Validator({"$ref": ref}, registry=self._registry)
            self._validators[ref] = validator
        return validator

    def check(self, value: Any, what: str, *pointer: str) -> None:
        error = best_match(self.validator(*pointer).iter_errors(value))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "(top level)"
            raise ProtocolMismatch(
                f"{what} does not match docs/protocol.schema.json at {where}: {error.message} "
                "(change the schema and docs/protocol.md together, or fix the server)"
            )

    def check_result(self, method: str, params: Any, result: Any) -> None:
        if method == "workspace/executeCommand":
            command = getattr(params, "command", None)
            if command is None and isinstance(params, dict):
                command = params.get("command")
            if command in self.commands:
                self.check(result, f"the {command} result", "properties", "commands", "properties", command,
                           "properties", "result")  # fmt: skip
        elif method in self.requests:
            self.check(result, f"the {method} result", "properties", "requests", "properties", method,
                       "properties", "result")  # fmt: skip

    def check_notification(self, method: str, params: Any) -> None:
        if method in self.notifications:
            self.check(params, f"{method}", "properties", "notifications", "properties", method, "properties", "params")

    def check_settings(self, settings: Any) -> None:
        self.check(settings, "the settings", "properties", "settings")


@functools.cache
def protocol_schema() -> ProtocolSchema:
    return ProtocolSchema()


def watch_client(client: Any) -> None:
    """Validate every response to a request this client sends and every notification it receives."""
    schema = protocol_schema()
    protocol = client.protocol
    problems: list[str] = []
    client.protocol_problems = problems
    send = protocol.send_request_async

    def checked_request(method: str, params: Any | None = None, msg_id: Any = None) -> asyncio.Future[Any]:
        future = send(method, params, msg_id)

        async def checked() -> Any:
            result = await future
            schema.check_result(method, params, result)
            return result

        return asyncio.ensure_future(checked())

    handle: Callable[[str, Any], Any] = protocol._handle_notification

    def checked_notification(method_name: str, params: Any) -> Any:
        try:
            schema.check_notification(method_name, params)
        except ProtocolMismatch as exc:
            problems.append(str(exc))
        return handle(method_name, params)

    protocol.send_request_async = checked_request
    protocol._handle_notification = checked_notification


def assert_no_protocol_problems(client: Any) -> None:
    problems = getattr(client, "protocol_problems", [])
    if problems:
        raise ProtocolMismatch("; ".join(problems[:5]))
