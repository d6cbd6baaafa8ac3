"""The agent loop: one user turn of a Claude tool loop on top of a ``ContextSession``.

A turn appends the user's text to the session, then repeats: run the idle microcompaction trigger, compact when the
auto-compact threshold is crossed (only here, between API rounds, never between a tool call and its result), send
exactly ``session.view()`` with the agent's system prompt and tools (streamed through ``anthropic.AsyncAnthropic``;
cache breakpoints on the system prompt, the tools and the last message), append the answer with the API's reported
usage, run the tools it asked for, append their results. It stops when the model stops asking for tools.

The transcript stays valid whatever happens: an API error or a cancellation while streaming appends nothing of the
partial answer; one during the tools answers every call still open with an is_error result. The engine is reached
only through a ``SessionAccess``: directly in tests, under the session's lock in the language server.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from compact_lsp.agent.model_requests import (
    EPHEMERAL,
    INTERNAL_FAILURE,
    REPLY_REFUSED,
    AgentError,
    ClientFactory,
    answer_blocks,
    api_failure,
    stream_message,
    usage_dict,
    with_cache_breakpoint,
)
from compact_lsp.agent.permissions import Permissions
from compact_lsp.agent.prompts import CANCELLED_TOOL_RESULT, agent_system_prompt
from compact_lsp.agent.session_access import DirectAccess, SessionAccess
from compact_lsp.agent.settings import AgentSettings
from compact_lsp.agent.tools import Tool, ToolContext, ToolError, ToolOutput, tool_params
from compact_lsp.agent.turn_result import TurnCancelled, TurnResult
from compact_lsp.engine.compaction.eviction import EvictionRecord
from compact_lsp.engine.compaction.full_compaction import CompactionError
from compact_lsp.engine.conversation.messages import Block, Message, canonical_json, result_text, tool_uses
from compact_lsp.engine.conversation.usage import ContextUsage
from compact_lsp.engine.conversation.validate import INTERRUPTED_RESULT
from compact_lsp.engine.files.file_tool_calls import PATH_KEYS
from compact_lsp.engine.files.usable_path import path_problem
from compact_lsp.engine.session.context_session import ContextSession, ConversationError
from compact_lsp.engine.session.session_microcompaction import AppendOutcome
from compact_lsp.engine.summarize.base import Summarizer, redact
from compact_lsp.engine.summarize.model_limits import capped_output
from compact_lsp.tracking.reader import FileRead

log = logging.getLogger(__name__)
T = TypeVar("T")
ChatEvent = dict[str, Any]
EmitFn = Callable[[ChatEvent], None]
EVENT_PREVIEW_CHARS = 4_000
"""A tool_result event carries at most this much of the result (the transcript has all of it)."""


def _preview(content: str | list[Block]) -> str:
    text = content if isinstance(content, str) else result_text({"content": content})
    return text if len(text) <= EVENT_PREVIEW_CHARS else text[:EVENT_PREVIEW_CHARS] + " …"


class ChatLoop:
    """Runs turns of one chat session; holds what does not change between turns."""

    def __init__(
        self,
        session: ContextSession,
        *,
        client_factory: ClientFactory,
        tools: Sequence[Tool],
        permissions: Permissions,
        emit: EmitFn,
        settings: AgentSettings | None = None,
        access: SessionAccess | None = None,
        summarizer: Summarizer | None = None,
        platform_name: str | None = None,
    ) -> None:
        self.session = session
        self.client_factory = client_factory
        self.tools = {tool.name: tool for tool in tools}
        self.tool_params = tool_params(tools)
        self.permissions = permissions
        self.emit = emit
        self.settings = settings or AgentSettings()
        self.access: SessionAccess = access or DirectAccess(session, summarizer)
        self.platform_name = platform_name or platform.system()
        self._open: dict[str, Block | None] = {}
        """The tool calls of the last assistant message: their result once known, else None."""

    # -- the prompt ------------------------------------------------------------------------------------------

    def system_prompt(self) -> str:
        session = self.session
        today = time.strftime("%Y-%m-%d", time.localtime(session.clock()))
        return agent_system_prompt(
            workspace_root=session.workspace_root,
            platform=self.platform_name,
            today=today,
            tools=[(tool.name, tool.summary) for tool in self.tools.values()],
            session_system=session.system_prompt(),
            other_roots=session.work_roots.paths[1:] if session.workspace_root else session.work_roots.paths,
        )

    def _request(self) -> tuple[dict[str, Any], int]:
        """The request body and its overhead: tokens the session's usage does not count (prompt, tools)."""
        session = self.session
        system = self.system_prompt()
        overhead = (
            session.counter.count_text(system)
            - session.counter.count_text(session.system_prompt())
            + session.counter.count_text(canonical_json(self.tool_params))
        )
        session.request_overhead = overhead  # the gauge's next compaction counts what this one does
        body = {
            "model": session.settings.model,
            "max_tokens": capped_output(session.settings.model, self.settings.max_tokens),
            "system": [{"type": "text", "text": system, "cache_control": EPHEMERAL}],
            "tools": self.tool_params,
            "messages": with_cache_breakpoint(session.view()),
        }
        return body, overhead

    # -- one turn --------------------------------------------------------------------------------------------

    async def run_turn(self, text: str, cancel: asyncio.Event | None = None) -> TurnResult:
        if not text.strip():
            raise ValueError("the message is empty; type something for the agent")
        rounds = 0
        stop = "end_turn"
        try:
            # the client first: without a key the turn ends before the message joins the conversation
            async with self.client_factory() as client:
                _body, overhead = await self.access.run(self._request, changes=False)
                if await self._compaction_due(overhead, self.session.counter.count_text(text)):
                    await self._compact(cancel)
                await self._append([await self.access.run(lambda: self._user_message(text), changes=False)])
                while True:
                    self._check(cancel)
                    if rounds >= self.settings.max_rounds:
                        stop = "max_rounds"
                        self._status(f"Stopped after {rounds} model calls in one turn (agent.maxRounds).")
                        break
                    body = await self._before_request(cancel)
                    final = await self._cancellable(stream_message(client, body, self.emit), cancel)
                    rounds += 1
                    stop = final.stop_reason or "end_turn"
                    content = answer_blocks(final.content)
                    if not content:
                        break
                    await self._append_reply(content, usage_dict(final.usage))
                    calls = [b for b in content if b["type"] == "tool_use"]
                    if not calls:
                        break
                    self._open = {call["id"]: None for call in calls}
                    reads = await self._run_tools(calls, cancel)
                    await self._append([{"role": "user", "content": self._results()}], reads=reads)
                    self._open = {}
        except TurnCancelled:
            await self._settle()
            self._status("Cancelled.")
            return TurnResult("cancelled", await self._usage(), rounds)
        except asyncio.CancelledError:
            await self._settle()
            raise
        except AgentError as exc:
            await self._settle()
            return await self._failed(exc, rounds)
        except Exception as exc:
            failure = api_failure(exc)
            await self._settle()
            if failure is None:  # a bug of ours: said once, in words, the details in the log
                log.exception("chat turn of %s stopped by an unexpected error", self.session.id)
                failure = AgentError("internal", INTERNAL_FAILURE)
            return await self._failed(failure, rounds)
        return TurnResult(stop, await self._usage(), rounds)

    def _user_message(self, text: str) -> Message:
        """The user's text; first, an interrupted result for every call the history ends on (the server died
        while a tool ran: the journal ends on the unanswered tool_use, and the API needs its answer first)."""
        last = self.session.messages[-1] if self.session.messages else None
        open_calls = list(tool_uses(last)) if last is not None and last["role"] == "assistant" else []
        if open_calls:
            log.warning("session %s: answering %d interrupted tool call(s)", self.session.id, len(open_calls))
        interrupted: list[Block] = [
            {"type": "tool_result", "tool_use_id": call["id"], "content": INTERRUPTED_RESULT, "is_error": True}
            for call in open_calls
        ]
        return {"role": "user", "content": [*interrupted, {"type": "text", "text": text}]}

    async def _failed(self, exc: AgentError, rounds: int) -> TurnResult:
        # the API's own error text may quote the key back (an "invalid x-api-key: ..." message)
        key = getattr(self.session.settings, "api_key", None) or os.environ.get("ANTHROPIC_API_KEY")
        message = redact(str(exc), key)
        log.warning("chat turn of %s ended by an error (%s): %s", self.session.id, exc.kind, message)
        self.emit({"kind": "error", "message": message, "errorKind": exc.kind})
        return TurnResult("error", await self._usage(), rounds, error=message, error_kind=exc.kind)

    async def _usage(self) -> ContextUsage:
        return await self.access.run(self.session.usage, changes=False)

    def _status(self, message: str) -> None:
        self.emit({"kind": "status", "message": message})

    def _check(self, cancel: asyncio.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise TurnCancelled()

    async def _cancellable(self, work: Awaitable[T], cancel: asyncio.Event | None) -> T:
        """Await ``work`` unless ``cancel`` is set first (then stop it and raise ``TurnCancelled``)."""
        if cancel is None:
            return await work
        task = asyncio.ensure_future(work)
        waiter = asyncio.ensure_future(cancel.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            waiter.cancel()
        if task.done():
            return task.result()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise TurnCancelled()

    # -- between rounds --------------------------------------------------------------------------------------

    async def _compaction_due(self, overhead: int, extra: int = 0) -> bool:
        session = self.session
        return await self.access.run(lambda: session.should_compact(session.usage(), overhead + extra), changes=False)

    async def _before_request(self, cancel: asyncio.Event | None) -> dict[str, Any]:
        """Idle microcompaction, then auto-compaction if due; returns the request to send."""
        eviction = await self.access.run(lambda: self.session.microcompact("idle"))
        if eviction is not None:
            self._microcompacted(eviction)
        body, overhead = await self.access.run(self._request, changes=False)
        if await self._compaction_due(overhead):
            await self._compact(cancel)
            body, _ = await self.access.run(self._request, changes=False)
        return body

    async def _compact(self, cancel: asyncio.Event | None) -> None:
        self._status("Compacting the conversation…")
        try:
            result = await self._cancellable(self.access.compact("auto"), cancel)
        except CompactionError as exc:
            log.warning("automatic compaction of %s did not happen: %s", self.session.id, exc)
            if exc.kind != "not_smaller" or exc.notify:  # no room is said once; it waits for growth meanwhile
                self._status(f"Automatic compaction did not happen: {exc}")
            return
        boundary = result.boundary
        self._status(f"Compacted the conversation: {boundary.tokens_before} → {boundary.tokens_after} tokens.")

    def _microcompacted(self, eviction: EvictionRecord) -> None:
        self.access.microcompacted(eviction)
        self._status(
            f"Cleared {len(eviction.cleared)} old tool results ({eviction.trigger}): "
            f"{eviction.tokens_before} → {eviction.tokens_after} tokens."
        )

    async def _append_reply(self, content: list[Block], usage: Mapping[str, Any] | None) -> None:
        """The model's answer; one that cannot join the conversation (a tool id used twice) ends the turn."""
        try:
            await self._append([{"role": "assistant", "content": content}], usage, from_model=True)
        except ConversationError as exc:
            raise AgentError("bad_response", REPLY_REFUSED.format(str(exc).splitlines()[0][:200])) from exc

    async def _append(
        self,
        messages: list[Message],
        usage: Mapping[str, Any] | None = None,
        reads: Sequence[tuple[str, FileRead]] = (),
        *,
        from_model: bool = False,
    ) -> AppendOutcome:
        session = self.session

        def append() -> AppendOutcome:
            outcome = session.append(messages, usage, from_model=from_model)
            for tool_use_id, read in reads:
                read.record_in(session, tool_use_id)
            return outcome

        # shielded: a cancellation must not let go of the session while the append is half done
        outcome = await asyncio.shield(self.access.run(append))
        if outcome.microcompaction is not None:
            self._microcompacted(outcome.microcompaction)
        return outcome

    async def _settle(self) -> None:
        """Answer every tool call still open, so the transcript never ends on a dangling tool_use."""
        session = self.session
        known = dict(self._open)
        self._open = {}

        def settle() -> None:
            last = session.messages[-1] if session.messages else None
            if last is None or last["role"] != "assistant":
                return
            ids = [block["id"] for block in tool_uses(last)]
            if not ids:
                return
            cancelled = {"type": "tool_result", "content": CANCELLED_TOOL_RESULT, "is_error": True}
            results = [known.get(i) or {**cancelled, "tool_use_id": i} for i in ids]
            session.append([{"role": "user", "content": results}])

        try:
            await asyncio.shield(self.access.run(settle))
        except Exception:
            log.exception("could not answer the open tool calls of %s", session.id)

    # -- tools -----------------------------------------------------------------------------------------------

    def _results(self) -> list[Block]:
        return [block for block in self._open.values() if block is not None]

    async def _run_tools(self, calls: list[Block], cancel: asyncio.Event | None) -> list[tuple[str, FileRead]]:
        reads: list[tuple[str, FileRead]] = []
        for call in calls:
            self._check(cancel)
            self.emit({"kind": "tool_use", "id": call["id"], "name": call["name"], "input": call.get("input", {})})
            output = await self._cancellable(self._run_tool(call), cancel)
            block: Block = {"type": "tool_result", "tool_use_id": call["id"], "content": output.content}
            if output.is_error:
                block["is_error"] = True
            self._open[call["id"]] = block
            if output.read is not None and not output.is_error:
                reads.append((call["id"], output.read))
            self.emit(
                {
                    "kind": "tool_result",
                    "toolUseId": call["id"],
                    "name": call["name"],
                    "content": _preview(output.content),
                    "isError": output.is_error,
                }
            )
        return reads

    async def _run_tool(self, call: Block) -> ToolOutput:
        tool = self.tools.get(call["name"])
        if tool is None:
            names = ", ".join(self.tools)
            return ToolOutput(f"There is no tool named {call['name']!r}; the tools are: {names}.", is_error=True)
        ctx = ToolContext(
            session=self.session,
            workspace_root=self.session.workspace_root,
            permissions=self.permissions,
            runner=self.access,
            tool_use_id=call["id"],
        )
        given = call.get("input")
        tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
        for key in PATH_KEYS:  # the model's unusable path is this call's error, never the turn's
            value = tool_input.get(key)
            problem = path_problem(value) if isinstance(value, str) else None
            if problem is not None:
                return ToolOutput(f"{tool.name}: {key} {problem}, so it cannot name a file; use a real path.", True)
        try:
            return await tool.run(ctx, tool_input)
        except ToolError as exc:
            return ToolOutput(str(exc), is_error=True)
        except Exception as exc:  # a broken tool must not stop the conversation
            log.exception("tool %s failed", tool.name)
            return ToolOutput(f"The tool failed: {type(exc).__name__}: {exc}", is_error=True)


async def run_turn(
    session: ContextSession,
    text: str,
    *,
    client_factory: ClientFactory,
    tools: Sequence[Tool],
    permissions: Permissions,
    emit: EmitFn,
    cancel: asyncio.Event | None = None,
    settings: AgentSettings | None = None,
    access: SessionAccess | None = None,
    summarizer: Summarizer | None = None,
) -> TurnResult:
    """One user turn (see the module docstring); the ``ChatLoop`` for callers that keep one per session."""
    loop = ChatLoop(
        session,
        client_factory=client_factory,
        tools=tools,
        permissions=permissions,
        emit=emit,
        settings=settings,
        access=access,
        summarizer=summarizer,
    )
    return await loop.run_turn(text, cancel)
