"""Each setting declared once, on its typed field: ``setting`` (what it says to the user, its wire key, how it is
read) and ``limit`` (the range of a number). The range is checked where a settings object is built
(``check_limits``, from its ``__post_init__``) and asked about one value by the server's parser (``check_setting``);
the parser's table, the protocol schema, the editors' settings and the docs' table are derived from the rest
(lsp/settings.py, cli/generate_settings.py). A field without ``setting`` is not set from the wire.

Messages name the setting as the user writes it: ``section.camelCaseKey: must be at least 0, got -2``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

DEFAULT_CONTEXT_WINDOW = 200_000
"""The window the defaults were set at: every share below equals the fixed figure it replaced at this size."""


class SettingsError(ValueError):
    """A setting with a value the engine cannot use; the message names the setting."""


@dataclass  # a field's metadata, never changed: frozen would only cost three generated methods at every import
class Limit:
    """The range of one numeric setting."""

    minimum: float
    maximum: float | None = None
    above: bool = False
    """The minimum itself is not allowed (a percent must be above 0)."""
    off: bool = False
    """-1 is allowed too: it turns the feature off."""
    key: str | None = None
    """The wire key when it is not the field's name in camelCase."""
    unit: str = ""

    def check(self, key: str, value: float) -> None:
        if self.off and value == -1:
            return
        low = value > self.minimum if self.above else value >= self.minimum
        if not low or (self.maximum is not None and value > self.maximum):
            raise SettingsError(f"{key}: {self.describe()}, got {_number(value)}{self.unit}")

    def describe(self) -> str:
        text = f"must be {'above' if self.above else 'at least'} {_number(self.minimum)}{self.unit}"
        if self.maximum is not None:
            text += f" and at most {_number(self.maximum)}{self.unit}"
        return text + (" (or -1 to turn it off)" if self.off else "")


@dataclass  # a field's metadata, never changed (see Limit)
class Declared:
    """What a settings field says about itself: a field with it is a setting on the wire."""

    help: str
    """One line for the editors' settings pages, the schema and the docs' table; "unset:" says what no value means."""
    kind: str = ""
    """How the value is read when its type is not enough: ``url``, ``path``, ``paths`` (a list of them), ``secret``
    (never echoed), ``threshold`` (tokens or a percent, filling this field and its ``_percent`` twin)."""
    key: str | None = None
    """The wire key when it is not the field's name in camelCase."""
    more: str = ""
    """What the docs' table says after ``help``."""
    user_only: bool = False
    """Only the user's own settings may set it (VS Code's scope ``machine``): a repository's settings cannot choose
    a folder, a URL or a program for it."""
    not_in_vscode: str = ""
    """Why VS Code does not offer it as a setting; empty: it does."""
    default_words: str = ""
    """The default in words when spelling it out is no help (a long list); the editors then leave it unset."""


def setting(help: str, bounds: dict[str, Limit] | None = None, **options: Any) -> dict[str, Any]:
    """Field metadata declaring a setting: ``field(default=5, metadata=setting("Results always kept.", limit(0)))``."""
    return {**(bounds or {}), "setting": Declared(help, **options)}


def limit(minimum: float, **kwargs: Any) -> dict[str, Limit]:
    """Field metadata declaring the range: ``field(default=5, metadata=limit(0))``."""
    return {"limit": Limit(minimum, **kwargs)}


def percent(minimum: float = 0, maximum: float = 100) -> dict[str, Limit]:
    """A share of the context window, in percent: above ``minimum``, at most ``maximum``."""
    return limit(minimum, maximum=maximum, above=True, unit="%")


def share_of(context_window: int, percent_value: float) -> int:
    return int(context_window * percent_value / 100)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def setting_key(cls: type, name: str) -> str:
    """The wire key of field ``name`` of the settings class ``cls``: ``microcompact.keepRecent``."""
    metadata: Mapping[str, Any] = next((f.metadata for f in fields(cls) if f.name == name), {})
    named = [d.key for d in (metadata.get("setting"), metadata.get("limit")) if d is not None and d.key]
    key = named[0] if named else re.sub(r"_(\w)", lambda m: m[1].upper(), name)
    section: str = getattr(cls, "SECTION", "")
    return f"{section}.{key}" if section else key


def check_setting(cls: type, name: str, value: Any) -> None:
    """Raise ``SettingsError`` if ``value`` is outside the range declared on field ``name`` of ``cls``."""
    for f in fields(cls):
        declared = f.metadata.get("limit")
        if f.name == name and declared is not None and isinstance(value, (int, float)):
            declared.check(setting_key(cls, name), value)


def check_limits(settings: Any) -> None:
    """Check every declared range of a settings object (its ``__post_init__``)."""
    for f in fields(settings):
        check_setting(type(settings), f.name, getattr(settings, f.name))
