"""The ranges of numeric settings: declared once on each field (``limit``), checked where a settings object is built
(``check_limits``, from its ``__post_init__``) and asked about one value by the server's parser (``check_setting``).

Messages name the setting as the user writes it: ``section.camelCaseKey: must be at least 0, got -2``.
"""

from __future__ import annotations

import re
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
    declared = next((f.metadata.get("limit") for f in fields(cls) if f.name == name), None)
    key = declared.key if declared is not None and declared.key else re.sub(r"_(\w)", lambda m: m[1].upper(), name)
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
