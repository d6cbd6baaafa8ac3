"""Repeated offline compactions merge instead of nesting.

When the conversation being summarised opens with an earlier offline summary, the new summary is built section by
section from the two: the primary request stays the user's very first one, the user messages, files, errors and
commands of both are listed once (most recent kept when bounded), the plan and the current work are the newest.
So the summary after a third compaction is about the size of one summary of the whole conversation, and what the
first one said is still there rather than cut off inside a nested copy.

An offline summary is recognised by ``OFFLINE_NOTE`` and its numbered section headings; a model's summary is not
merged (it has no reliable structure) and is carried over whole instead.
"""

from __future__ import annotations

import re

from compact_lsp.engine.prompts import SUMMARY_SECTIONS

INDENT = "   "
"""Continuation lines of a multi-line item, so that no text inside an item looks like a heading or a new item."""

_NUMBERED = re.compile(r"^(\d+)\. ")
_MESSAGE_REF = re.compile(r"\(message \d+ above\)")


def indent_continuation(text: str) -> str:
    return text.replace("\n", "\n" + INDENT)


def parse_sections(text: str, note: str) -> dict[str, list[str]] | None:
    """The sections of an offline summary (each a list of items, continuation lines kept with the item they
    continue), else None."""
    lines = text.split("\n")
    if not lines or lines[0] != note:
        return None
    sections: dict[str, list[str]] = {}
    expected = iter(enumerate(SUMMARY_SECTIONS, start=1))
    current: list[str] | None = None
    nxt = next(expected, None)
    for line in lines[1:]:
        if nxt is not None and line == f"{nxt[0]}. {nxt[1]}:":
            current = sections.setdefault(nxt[1], [])
            nxt = next(expected, None)
        elif current is not None and line.startswith(INDENT) and current:
            current[-1] += "\n" + line  # kept indented: the item is rendered again as it was
        elif current is not None and line.strip() and line != "(none recorded)":
            current.append(line)
    return sections if len(sections) == len(SUMMARY_SECTIONS) else None


def _keyed(items: list[str]) -> dict[str, str]:
    """``- key: ...`` items by key (a file's path, an error's source), in order."""
    out: dict[str, str] = {}
    for item in items:
        key = item.split(": ", 1)[0] if item.startswith("- ") else item
        out.pop(key, None)
        out[key] = item
    return out


def merge_sections(
    earlier: dict[str, list[str]], new: dict[str, list[str]], *, max_messages: int, max_errors: int, max_commands: int
) -> dict[str, list[str]]:
    """One set of sections from an earlier summary's and the new part's (see the module docstring)."""
    merged = {name: list(new.get(name, [])) for name in SUMMARY_SECTIONS}
    primary = [line for line in earlier["Primary Request and Intent"] if not line.startswith("The user asked this")]
    focus = [line for line in new["Primary Request and Intent"] if line.startswith("The user asked this")]
    merged["Primary Request and Intent"] = (primary or new["Primary Request and Intent"]) + focus
    if not merged["Key Technical Concepts"]:
        merged["Key Technical Concepts"] = earlier["Key Technical Concepts"]
    files = _keyed([i for i in earlier["Files and Code"] if i.startswith("- ")])
    files.update(_keyed([i for i in new["Files and Code"] if i.startswith("- ")]))
    merged["Files and Code"] = list(files.values())
    errors = [i for i in earlier["Errors and Fixes"] + new["Errors and Fixes"] if i.startswith("- ")]
    merged["Errors and Fixes"] = errors[-max_errors:]
    commands = [i for i in earlier["Problem Solving"] + new["Problem Solving"] if i.startswith("- ")]
    if commands:
        merged["Problem Solving"] = ["Commands run, oldest first:", *commands[-max_commands:]]
    messages = [_NUMBERED.sub("", i, count=1) for i in earlier["All User Messages"] if _NUMBERED.match(i)]
    messages += [_NUMBERED.sub("", i, count=1) for i in new["All User Messages"] if _NUMBERED.match(i)]
    shown = messages[-max_messages:]
    first = len(messages) - len(shown) + 1
    merged["All User Messages"] = ([f"({first - 1} earlier messages not listed)"] if first > 1 else []) + [
        f"{n}. {text}" for n, text in enumerate(shown, start=first)
    ]
    for name in ("Pending Tasks", "Current Work", "Next Step"):
        if not merged[name]:
            merged[name] = earlier[name]
    merged["Next Step"] = [_MESSAGE_REF.sub(f"(message {len(messages)} above)", i) for i in merged["Next Step"]]
    return merged
