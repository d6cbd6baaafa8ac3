"""The prompts are pinned: a change to what the model is asked, or reads back, must show up here."""

from __future__ import annotations

import pytest

from compact_lsp.engine.prompts import (
    COMPACTION_PROMPT,
    NOTES_SECTIONS,
    SUMMARY_PREAMBLE,
    SUMMARY_SECTIONS,
    compaction_prompt,
    empty_notes,
    notes_update_prompt,
    summary_message_text,
    summary_of_message_text,
)

EXPECTED_SUMMARY_MESSAGE = """\
This session continues from an earlier conversation that ran out of context. The summary below covers the \
earlier portion of the conversation.

1. Primary Request and Intent: fix the login form.

Continue from where the conversation left off without asking the user any further questions: resume the last \
task you were working on. Files you read before may have changed; read them again before editing if they are \
not attached below."""

EXPECTED_EMPTY_NOTES = """\
# Session notes

## Current State

## Task

## Files and Functions

## Errors and Corrections

## Learnings

## Worklog
"""


def test_summary_message_is_pinned() -> None:
    assert summary_message_text("  1. Primary Request and Intent: fix the login form.\n") == EXPECTED_SUMMARY_MESSAGE


def test_summary_message_opens_with_the_preamble_and_round_trips() -> None:
    text = summary_message_text("the summary")
    assert text.startswith(SUMMARY_PREAMBLE)
    assert summary_of_message_text(text) == "the summary"
    assert summary_of_message_text("Please fix the bug") is None


def test_empty_notes_template_is_pinned() -> None:
    assert empty_notes() == EXPECTED_EMPTY_NOTES


def test_compaction_prompt_asks_for_analysis_then_every_section_in_order() -> None:
    analysis = COMPACTION_PROMPT.index("<analysis>")
    summary = COMPACTION_PROMPT.index("<summary>")
    assert analysis < summary
    positions = [COMPACTION_PROMPT.index(f"{n}. {name}:") for n, name in enumerate(SUMMARY_SECTIONS, start=1)]
    assert positions == sorted(positions) and positions[0] > summary
    assert "Do not call any tools." in COMPACTION_PROMPT


@pytest.mark.parametrize(
    "clause",
    [
        pytest.param(
            "The primary request is the user's own first request, in their words: not an IDE notice", id="primary"
        ),
        pytest.param(
            "every file read, edited or written in the conversation, one line each with its last action", id="trail"
        ),
        pytest.param("the exception type and message, the failing test names", id="errors"),
        pytest.param("in order and verbatim (shorten only very long ones)", id="user-messages"),
        pytest.param(
            "the latest approved plan (a plan the user accepted in plan mode, a plan file, or the todo list)", id="plan"
        ),
    ],
)
def test_compaction_prompt_asks_for_what_must_survive(clause: str) -> None:
    assert clause in COMPACTION_PROMPT


@pytest.mark.parametrize(
    ("instructions", "suffix"),
    [
        pytest.param(None, "", id="none"),
        pytest.param("   ", "", id="blank"),
        pytest.param(
            "  focus on the schema migration ",
            "\n\nAdditional instructions from the user for this summary (follow them):\nfocus on the schema migration",
            id="focus",
        ),
    ],
)
def test_instructions_are_appended_verbatim(instructions: str | None, suffix: str) -> None:
    assert compaction_prompt(instructions) == COMPACTION_PROMPT + suffix


def test_notes_prompt_names_every_section_and_embeds_the_notes() -> None:
    prompt = notes_update_prompt("## Task\nship it")
    for section in NOTES_SECTIONS:
        assert f"- {section}:" in prompt
    assert "<current_notes>\n## Task\nship it\n</current_notes>" in prompt
    assert "<notes>" in prompt
    assert empty_notes().strip() in notes_update_prompt("")
