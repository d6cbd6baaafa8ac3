"""Checks that a conversation is one the Messages API accepts, and a repair for one that is not.

The rules (what the API rejects):

- the first message is a user message and roles alternate;
- no message has empty content, and no text block is empty or only whitespace;
- every tool_use id is unique, and so is every tool_result's tool_use_id;
- a tool_result answers a tool_use of the immediately preceding assistant message, and the results come before
  any other block of that user message;
- every tool_use is answered in the next user message, except a trailing in-flight call (the last message is
  an assistant message whose calls are still running).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from compact_lsp.engine.conversation.messages import Block, Message, blocks_of, join_messages, tool_uses

log = logging.getLogger(__name__)

INTERRUPTED_RESULT = "Tool call was interrupted; no result was recorded."
"""The content of the is_error result ``repair`` adds for a call that was never answered."""


LEADING_PLACEHOLDER = "(earlier conversation not available)"
"""The text of the user message ``repair`` puts before a conversation starting with an assistant message."""


@dataclass
class Problem:
    """One thing the API would reject, and where it is."""

    message_index: int
    block_index: int | None
    code: str
    """A short stable name: orphan-tool-result, unanswered-tool-use, duplicate-tool-use-id, ..."""
    message: str
    """What is wrong, for a person."""

    def __str__(self) -> str:
        where = f"messages[{self.message_index}]"
        if self.block_index is not None:
            where += f".content[{self.block_index}]"
        return f"{where}: {self.message} ({self.code})"


def _is_blank_text(block: Block) -> bool:
    text = block.get("text")  # isspace: what strip() would leave nothing of, without copying a long text
    return block.get("type") == "text" and (not isinstance(text, str) or not text or text.isspace())


def validate(messages: list[Message]) -> list[Problem]:
    """Every problem in the conversation, in message order; [] when the API would accept it."""
    problems: list[Problem] = []
    seen_use_ids: dict[str, int] = {}
    seen_result_ids: dict[str, int] = {}
    for i, message in enumerate(messages):
        role = message.get("role")
        expected = "user" if i == 0 or messages[i - 1].get("role") == "assistant" else "assistant"
        if role not in ("user", "assistant"):
            problems.append(Problem(i, None, "bad-role", f"role must be 'user' or 'assistant', not {role!r}"))
            continue
        if i == 0 and role != "user":
            problems.append(Problem(i, None, "role-order", "the conversation must start with a user message"))
        elif i > 0 and role != expected:
            problems.append(Problem(i, None, "role-order", f"two {role} messages in a row; roles must alternate"))
        blocks = blocks_of(message)
        if not blocks:
            problems.append(Problem(i, None, "empty-content", f"the {role} message has no content"))
            continue
        for j, block in enumerate(blocks):
            if block.get("type") == "text" and _is_blank_text(block):
                problems.append(Problem(i, j, "empty-text", "a text block must contain non-whitespace text"))
        if role == "assistant":
            _check_assistant(i, blocks, messages, seen_use_ids, problems)
        else:
            _check_user(i, blocks, messages, seen_result_ids, problems)
    return problems


def _check_assistant(
    i: int,
    blocks: list[Block],
    messages: list[Message],
    seen_use_ids: dict[str, int],
    problems: list[Problem],
) -> None:
    nxt = messages[i + 1] if i + 1 < len(messages) else None
    answered: set[object] | None = None  # the next message's results, gathered at the first call that asks
    for j, block in enumerate(blocks):
        if block.get("type") == "tool_result":
            problems.append(Problem(i, j, "misplaced-block", "a tool_result block in an assistant message"))
        if block.get("type") != "tool_use":
            continue
        use_id = block.get("id")
        if not isinstance(use_id, str) or not use_id:
            problems.append(Problem(i, j, "missing-id", "a tool_use block without an id"))
            continue
        if use_id in seen_use_ids:
            first = seen_use_ids[use_id]
            problems.append(
                Problem(
                    i,
                    j,
                    "duplicate-tool-use-id",
                    f"tool_use id {use_id!r} was already used in messages[{first}]",
                )
            )
        else:
            seen_use_ids[use_id] = i
        if nxt is None:
            continue  # a trailing in-flight call
        if answered is None:
            answered = _ids(nxt, "tool_result", "tool_use_id") if nxt.get("role") == "user" else set()
        if use_id not in answered:
            problems.append(
                Problem(
                    i,
                    j,
                    "unanswered-tool-use",
                    f"tool_use {use_id!r} ({block.get('name')}) has no tool_result in the next user message",
                )
            )


def _check_user(
    i: int,
    blocks: list[Block],
    messages: list[Message],
    seen_result_ids: dict[str, int],
    problems: list[Problem],
) -> None:
    prev = messages[i - 1] if i > 0 else None
    asked: set[object] | None = None  # the previous message's calls, gathered at the first result that asks
    other_seen = False
    for j, block in enumerate(blocks):
        kind = block.get("type")
        if kind in ("tool_use", "thinking", "redacted_thinking"):
            problems.append(Problem(i, j, "misplaced-block", f"a {kind} block in a user message"))
        if kind != "tool_result":
            other_seen = True
            continue
        use_id = block.get("tool_use_id")
        if other_seen:
            problems.append(Problem(i, j, "tool-result-not-first", "tool_result blocks must come before other content"))
        if use_id in seen_result_ids:
            first = seen_result_ids[use_id]
            problems.append(
                Problem(
                    i,
                    j,
                    "duplicate-tool-result",
                    f"tool_use {use_id!r} was already answered in messages[{first}]",
                )
            )
            continue
        if isinstance(use_id, str):
            seen_result_ids[use_id] = i
        if asked is None:
            asked = _ids(prev, "tool_use", "id") if prev is not None and prev.get("role") == "assistant" else set()
        if use_id not in asked:
            problems.append(
                Problem(
                    i,
                    j,
                    "orphan-tool-result",
                    f"tool_result for {use_id!r} answers no tool_use of the preceding assistant message",
                )
            )


def _ids(message: Message, kind: str, key: str) -> set[object]:
    return {b.get(key) for b in blocks_of(message) if b.get("type") == kind}


def is_valid(messages: list[Message]) -> bool:
    return not validate(messages)


def append_problems(window: list[Message], new: list[Message], known_ids: set[str], *, cut: bool) -> list[str]:
    """What the API would reject once ``new`` follows ``window``, described for a person (at most five).

    ``window`` is the end of a history that is valid already (its last two messages: a tool call and its
    results), so only it and the new messages are checked, plus the new tool_use ids against ``known_ids`` (all
    ids of the history): the cost follows the append, not the session. ``cut``: the window starts
    mid-conversation, which is not the new messages' doing.
    """
    candidate = join_messages(window, new)
    problems = validate(candidate)
    if cut:
        problems = [p for p in problems if p.message_index > 0 or p.code not in ("role-order", "orphan-tool-result")]
    base = len(candidate) - len(new)
    for offset, message in enumerate(new):
        for block in tool_uses(message):
            if block["id"] in known_ids:
                problems.append(
                    Problem(base + offset, None, "duplicate-tool-use-id", f"tool_use id {block['id']!r} is used twice")
                )
    return [_describe(p, base) for p in problems[:5]]


def _describe(problem: Problem, base: int) -> str:
    index = problem.message_index
    where = f"new message {index - base}" if index >= base else f"message {index}"
    return f"{where}: {problem.message}"


@dataclass(eq=False)
class Repair:
    """The repaired messages and, in order, what was changed to get them."""

    messages: list[Message]
    actions: list[str] = field(default_factory=list)
    origins: list[int | None] = field(default_factory=list)
    """For each repaired message, the index of the input message it starts with (None: added by repair)."""

    @property
    def changed(self) -> bool:
        return bool(self.actions)


def repair(messages: list[Message], *, alternating: bool = False) -> Repair:
    """Fix what the API would reject, saying what was done; never mutates its input.

    Drops empty text blocks and empty messages, merges consecutive messages of one role, puts a placeholder
    user message before a leading assistant message, drops repeated tool_use ids and orphan or duplicate
    results, answers each unanswered call with an is_error result (creating the user message if needed) and
    moves results before other blocks. A valid conversation comes back equal, with no actions.

    ``alternating``: the messages came from a source that always alternated roles (a session journal), so an
    assistant message with tool calls followed by another assistant message lost the user message between them:
    its calls are answered as interrupted there, rather than the two merged into one response.
    """
    actions: list[str] = []
    if is_valid(messages):  # the usual case (an import, a replay): one check instead of the passes below
        return Repair([{**m, "content": list(blocks_of(m))} for m in messages], actions, list(range(len(messages))))
    # The steps build new message dicts and content lists and never change a block, so copying each message
    # keeps the input unchanged; a deep copy of the whole conversation cost a quarter of the hook's time.
    work = [dict(m) for m in messages]
    # Steps rebuild message dicts but keep their keys, so a private key follows a message through merges.
    for index, message in enumerate(work):
        message[_ORIGIN] = index
    if alternating:
        work = _answer_before_next_assistant(work, actions)
    # One pass can expose another problem (a user message left empty by dropping orphans makes two assistant
    # messages adjacent), so repeat until the conversation validates; each pass only removes or adds answers.
    for _ in range(_MAX_PASSES):
        work = _drop_empty(work, actions)
        work = _merge_same_role(work, actions)
        work = _lead_with_user(work, actions)
        work = _fix_tool_pairs(work, actions)
        if is_valid(work):
            break
    origins: list[int | None] = [message.pop(_ORIGIN, None) for message in work]
    if actions:
        log.debug("repaired conversation: %s", "; ".join(actions))
    return Repair(work, actions, origins)


_MAX_PASSES = 4
_ORIGIN = "__repair_origin__"


def _answer_before_next_assistant(messages: list[Message], actions: list[str]) -> list[Message]:
    out: list[Message] = []
    for i, message in enumerate(messages):
        out.append(message)
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        uses = [b for b in blocks_of(message) if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]
        if message.get("role") == "assistant" and uses and nxt is not None and nxt.get("role") == "assistant":
            user: Message = {"role": "user", "content": []}
            actions.extend(_answer_all(user, uses, len(out)))
            out.append(user)
    return out


def _drop_empty(messages: list[Message], actions: list[str]) -> list[Message]:
    out: list[Message] = []
    for i, message in enumerate(messages):
        blocks = blocks_of(message)
        kept = [b for b in blocks if not _is_blank_text(b)]
        if len(kept) != len(blocks):
            actions.append(f"dropped {len(blocks) - len(kept)} empty text block(s) from messages[{i}]")
        if not kept:
            actions.append(f"dropped empty {message.get('role')} message at messages[{i}]")
            continue
        out.append({**message, "content": kept})
    return out


def _merge_same_role(messages: list[Message], actions: list[str]) -> list[Message]:
    out: list[Message] = []
    for i, message in enumerate(messages):
        if out and out[-1].get("role") == message.get("role"):
            actions.append(f"merged {message.get('role')} messages[{i}] into the one before it")
            out[-1] = {**out[-1], "content": blocks_of(out[-1]) + blocks_of(message)}
        else:
            out.append(message)
    return out


def _lead_with_user(messages: list[Message], actions: list[str]) -> list[Message]:
    if messages and messages[0].get("role") == "assistant":
        # Dropping the assistant turn would lose what the model said; a marked placeholder loses nothing.
        actions.append("inserted a placeholder user message before the leading assistant message")
        return [{"role": "user", "content": [{"type": "text", "text": LEADING_PLACEHOLDER}]}, *messages]
    return messages


def _fix_tool_pairs(messages: list[Message], actions: list[str]) -> list[Message]:
    out: list[Message] = [dict(m) for m in messages]
    seen_use_ids: set[str] = set()
    i = 0
    while i < len(out):
        message = out[i]
        if message.get("role") == "assistant":
            blocks: list[Block] = []
            for block in blocks_of(message):
                if block.get("type") == "tool_use":
                    use_id = block.get("id")
                    if not isinstance(use_id, str) or not use_id or use_id in seen_use_ids:
                        actions.append(f"dropped tool_use with a missing or repeated id {use_id!r} at messages[{i}]")
                        continue
                    seen_use_ids.add(use_id)
                elif block.get("type") == "tool_result":
                    actions.append(f"dropped a tool_result found in assistant messages[{i}]")
                    continue
                blocks.append(block)
            message["content"] = blocks
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            if uses and i + 1 == len(out):
                break  # a trailing in-flight call
            if uses and out[i + 1].get("role") != "user":
                out.insert(i + 1, {"role": "user", "content": []})
            if uses:
                actions.extend(_answer_all(out[i + 1], uses, i + 1))
        else:
            prev = out[i - 1] if i > 0 and out[i - 1].get("role") == "assistant" else None
            asked = [b["id"] for b in blocks_of(prev) if b.get("type") == "tool_use"] if prev else []
            results: list[Block] = []
            others: list[Block] = []
            answered: set[str] = set()
            moved = False
            for block in blocks_of(message):
                kind = block.get("type")
                if kind in ("tool_use", "thinking", "redacted_thinking"):
                    actions.append(f"dropped a {kind} block found in user messages[{i}]")
                    continue
                if kind != "tool_result":
                    others.append(block)
                    continue
                use_id = str(block.get("tool_use_id", ""))
                if use_id not in asked:
                    actions.append(f"dropped orphan tool_result for {use_id!r} at messages[{i}]")
                elif use_id in answered:
                    actions.append(f"dropped duplicate tool_result for {use_id!r} at messages[{i}]")
                else:
                    answered.add(use_id)
                    moved = moved or bool(others)
                    results.append(block)
            if moved:
                actions.append(f"moved tool_result blocks before other content in messages[{i}]")
            message["content"] = results + others
        i += 1
    return out


def _answer_all(user: Message, uses: list[Block], index: int) -> list[str]:
    """Add an is_error result to ``user`` for every call in ``uses`` it does not answer."""
    answered = {b.get("tool_use_id") for b in blocks_of(user) if b.get("type") == "tool_result"}
    added: list[Block] = []
    actions: list[str] = []
    for use in uses:
        if use["id"] not in answered:
            added.append(
                {
                    "type": "tool_result",
                    "tool_use_id": use["id"],
                    "content": INTERRUPTED_RESULT,
                    "is_error": True,
                }
            )
            actions.append(f"answered interrupted tool_use {use['id']!r} ({use.get('name')}) in messages[{index}]")
    if added:
        user["content"] = added + blocks_of(user)
    return actions
