"""Every prompt the engine sends or stores, as named constants; ``tests/engine/test_prompts.py`` pins them.

Changing a prompt changes what the model does: change it here, deliberately, and update the pinned text.
"""

from __future__ import annotations

SUMMARY_SECTIONS: tuple[str, ...] = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Next Step",
)
"""The summary's sections, in order; the model summary and the offline summary both use these headings."""

COMPACTION_SYSTEM_PROMPT = "You are a helpful AI assistant tasked with summarizing conversations."
"""The system prompt of a summary request (the agent's own system prompt is not needed to summarise)."""

COMPACTION_PROMPT = """\
Your task is to create a detailed summary of the conversation so far. The summary will replace the \
conversation: another instance of you will continue the work from it alone, so it must keep every technical \
detail, decision and piece of code that is needed to carry on without losing context.

Before the summary, think it through inside <analysis> tags (this scratchpad is discarded):
- Go through the conversation in order. For each part, note what the user explicitly asked for and how, your \
approach, the decisions made, file names, full code snippets, function signatures and edits, the errors met \
and how they were fixed, and any feedback the user gave, especially where they told you to do something \
differently.
- Check that every point is technically accurate and complete.

Then write the summary inside <summary> tags, with these sections:

1. Primary Request and Intent: every explicit request and intent of the user, in detail. The primary request \
is the user's own first request, in their words: not an IDE notice (<ide_opened_file>, <ide_selection>), a \
<system-reminder>, a slash-command wrapper (<command-name>) or command or tool output.
2. Key Technical Concepts: the technologies, frameworks and concepts discussed.
3. Files and Code: the files examined, modified or created, each with why it matters, a summary of the \
changes, and the important code snippets (in full where they matter). Then the artifact trail: every file read, \
edited or written in the conversation, one line each with its last action (read, edited, written), none left out.
4. Errors and Fixes: each error met and how it was fixed, including the user's feedback on it. Quote each \
error's decisive lines: the exception type and message, the failing test names, the compiler's error lines.
5. Problem Solving: problems solved and troubleshooting still under way.
6. All User Messages: every user message that is not a tool result or harness text, in order and verbatim \
(shorten only very long ones). They show what the user wants and how it changed.
7. Pending Tasks: the latest approved plan (a plan the user accepted in plan mode, a plan file, or the todo \
list), with its title, its open steps as pending and its finished steps as done; then any other tasks you were \
explicitly asked to do that are not done yet.
8. Current Work: precisely what was being worked on immediately before this summary, with file names and code.
9. Next Step: the next step, only if it follows directly from the user's most recent explicit request; quote \
the latest conversation verbatim to show where you left off. Do not start on tangents or old, finished tasks.

Answer with the <analysis> block and then the <summary> block, and nothing else. Do not call any tools."""

INSTRUCTIONS_SUFFIX = """

Additional instructions from the user for this summary (follow them):
{instructions}"""
"""Appended to ``COMPACTION_PROMPT`` when the user gave ``/compact <instructions>``."""

SUMMARY_PREAMBLE = (
    "This session continues from an earlier conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation."
)
"""The first words of the summary message that replaces the history; also how an old summary is recognised."""

SUMMARY_CONTINUATION = (
    "Continue from where the conversation left off without asking the user any further questions: "
    "resume the last task you were working on. Files you read before may have changed; read them again "
    "before editing if they are not attached below."
)

NOTES_SECTIONS: tuple[str, ...] = (
    "Current State",
    "Task",
    "Files and Functions",
    "Errors and Corrections",
    "Learnings",
    "Worklog",
)
"""Sections of the session notes document, in order."""

NOTES_TITLE = "# Session notes"

NOTES_UPDATE_PROMPT = """\
You keep the working notes of this coding session. The notes replace the conversation when it runs out of \
context, so they must let another instance of you continue the work from them alone.

Rewrite the notes below to cover the conversation so far. Keep every section heading exactly as it is; keep \
what is still true, correct what changed, add what is new, and be specific (file paths, function names, \
commands, error messages). Sections:
- Current State: what is being worked on right now and what comes next.
- Task: what the user asked for, in their words where it matters.
- Files and Functions: the files and functions that matter, and why.
- Errors and Corrections: errors met and how they were fixed; corrections the user made.
- Learnings: facts about the codebase or the user's preferences worth keeping.
- Worklog: one terse line per step taken, oldest first.

Answer with the complete notes inside <notes> tags and nothing else. Do not call any tools.

Current notes:
<current_notes>
{notes}
</current_notes>"""


def compaction_prompt(instructions: str | None = None) -> str:
    """The final user message of a summary request, with the user's ``/compact`` instructions appended."""
    if instructions and instructions.strip():
        return COMPACTION_PROMPT + INSTRUCTIONS_SUFFIX.format(instructions=instructions.strip())
    return COMPACTION_PROMPT


def summary_message_text(summary: str) -> str:
    """The text of the user message that stands in for the summarised history."""
    return f"{SUMMARY_PREAMBLE}\n\n{summary.strip()}\n\n{SUMMARY_CONTINUATION}"


def summary_of_message_text(text: str) -> str | None:
    """The summary inside a text made by ``summary_message_text``, or None when it is not one."""
    if not text.startswith(SUMMARY_PREAMBLE):
        return None
    body = text[len(SUMMARY_PREAMBLE) :]
    if body.rstrip().endswith(SUMMARY_CONTINUATION):
        body = body.rstrip()[: -len(SUMMARY_CONTINUATION)]
    return body.strip()


def empty_notes() -> str:
    """The notes template: a title and every section, empty."""
    return NOTES_TITLE + "\n" + "".join(f"\n## {section}\n" for section in NOTES_SECTIONS)


def notes_update_prompt(notes: str) -> str:
    return NOTES_UPDATE_PROMPT.format(notes=notes.strip() or empty_notes())


# -- rehydration attachments: the text around a file, plan or skill brought back after full compaction --------

FILE_DELETED_NOTE = "{path} was deleted since it was read."
"""The body of a ``<file deleted="true">`` attachment."""

FILE_PARTIAL_NOTE = (
    "partial: {path} has {total_lines} lines, about {tokens} tokens, {over}: "
    "showing only the lines read or edited (lines=...); to see more, read it with offset=FIRST limit=COUNT "
    "(the omitted markers and the outline after the lines give both)"
)
"""The ``note`` of a big file brought back as the lines the agent read or edited."""

FILE_HEAD_NOTE = (
    "partial: {path} has {total_lines} lines, about {tokens} tokens, {over}: "
    "showing its beginning; to see more, read it with offset=FIRST limit=COUNT (the omitted markers and the "
    "outline after the lines give both)"
)
"""The ``note`` of a big file brought back as its beginning (the agent read it whole)."""

OVER_FILE_BUDGET = "over the {cap:,}-{unit} budget per file"
"""``{over}`` in a partial file's note: the file is bigger than one file may take."""
OVER_TOTAL_BUDGET = "more than the {left:,} {unit}s left of the total budget"
"""``{over}`` in a partial file's note: within one file's budget, but not within what the files before it left."""

FILE_DIRTY_NOTE = "unsaved editor buffer: the file on disk differs"
"""Added to the ``note`` of a file brought back from the editor's unsaved buffer."""

FILE_OMITTED_LINES = "[... lines {first}-{last} omitted: offset={first} limit={count} ...]"
"""Stands for the lines left out between two excerpts of a big file, with the read that shows them."""

FILE_OUTLINE_HEADER = "[outline of the lines not shown: FIRST-LAST what is there; read one with offset=FIRST]"
"""Heads the outline of a big file's other parts, after the lines shown (``file_outline``)."""

FILE_OUTLINE_MORE = "[... {count} more outline entries]"
"""Ends an outline cut to its budget."""

PLAN_NOTE = "the task list as it stood when the conversation was compacted"
"""The ``note`` of the ``<plan>`` attachment."""

SKILL_TRUNCATED_NOTE = "\n\n[... skill content truncated; read full file if needed]"
"""Ends a skill cut to its budget."""
