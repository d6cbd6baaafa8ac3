"""Checking request parameters by hand, so a bad call is told exactly which field is wrong and why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compact_lsp.lsp.protocol.errors import invalid_params


def as_object(params: Any, method: str) -> Mapping[str, Any]:
    """The params object of a custom request (``null`` counts as ``{}``)."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return params
    if isinstance(params, list) and len(params) == 1 and isinstance(params[0], Mapping):
        return params[0]
    raise invalid_params(f"{method}: params must be an object, got {_kind(params)}")


def command_argument(args: tuple[object, ...], command: str) -> Mapping[str, Any]:
    """A command's one optional argument object ``{sessionId?, ...}``."""
    if not args or args == (None,):
        return {}
    if len(args) > 1:
        raise invalid_params(f"{command}: takes one argument object {{sessionId?, ...}}, got {len(args)} arguments")
    arg = args[0]
    if not isinstance(arg, Mapping):
        raise invalid_params(f'{command}: the argument must be an object like {{"sessionId": ...}}, got {_kind(arg)}')
    return arg


def optional_str(params: Mapping[str, Any], key: str, method: str) -> str | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_params(f"{method}: '{key}' must be a string, got {_kind(value)}")
    return value


def required_str(params: Mapping[str, Any], key: str, method: str) -> str:
    value = optional_str(params, key, method)
    if not value:
        raise invalid_params(f"{method}: '{key}' is required")
    return value


def optional_int(params: Mapping[str, Any], key: str, method: str, minimum: int = 0) -> int | None:
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid_params(f"{method}: '{key}' must be an integer, got {_kind(value)}")
    if value < minimum:
        raise invalid_params(f"{method}: '{key}' must be at least {minimum}, got {value}")
    return value


def optional_object(params: Mapping[str, Any], key: str, method: str) -> Mapping[str, Any] | None:
    value = params.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise invalid_params(f"{method}: '{key}' must be an object, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, Mapping) else type(value).__name__
