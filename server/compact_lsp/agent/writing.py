"""Tools that change things: edit_file, write_file, remember, and (only when enabled) run_shell_command.

Each asks permission after checking its input, so the user is never asked about a change that would fail.
edit_file, and write_file over an existing file, refuse unless the file was read in this conversation and has
not changed on disk since (read-before-write, from the session's read-file state). After a change the
read-file state is told at once, so a second edit of the same file in the same response is not mistaken for
a stale one, and so is what the model saw of the file (``own_change``): the watcher's news of the agent's own
change is no news.
"""

from __future__ import annotations

import asyncio
import errno
import os
import re
import signal
from collections.abc import Mapping
from typing import Any

from compact_lsp.agent.permissions import PermissionKind, PermissionRequest
from compact_lsp.agent.prompts import DENIED_TOOL_RESULT, STALE_EDIT, UNREAD_EDIT
from compact_lsp.agent.tools import Tool, ToolContext, ToolError, ToolOutput, bound, path_arg, string_arg
from compact_lsp.engine.files.file_gate import (
    MAX_READ_BYTES,
    AllowedRoots,
    FileTooLarge,
    NotRegularFile,
    OutsideRoots,
    open_gated,
    read_gated,
)
from compact_lsp.engine.files.memory_index import INDEX_FILE
from compact_lsp.engine.files.read_record import Freshness
from compact_lsp.engine.files.usable_path import real_path
from compact_lsp.runtime.atomic_files import WriteFailed, replace_file
from compact_lsp.runtime.io_threads import run_io

PREVIEW_LINES = 12
SHELL_TIMEOUT = 120.0
MAX_SHELL_TIMEOUT = 600.0


def _preview(text: str, prefix: str = "") -> str:
    lines = text.splitlines() or [""]
    shown = [f"{prefix}{line}"[:200] for line in lines[:PREVIEW_LINES]]
    if len(lines) > PREVIEW_LINES:
        shown.append(f"{prefix}… {len(lines) - PREVIEW_LINES} more lines")
    return "\n".join(shown)


async def _require_fresh_read(ctx: ToolContext, display: str, real: str) -> None:
    """Read-before-write: the model must have read the file, and the file must be as it was then."""

    def problem() -> str | None:
        state = ctx.session.read_state
        record = state.get(real)
        if record is None or record.kind == "editor":
            return UNREAD_EDIT.format(path=display)
        if state.freshness(record) is not Freshness.FRESH:
            return STALE_EDIT.format(path=display)
        return None

    message = await ctx.runner.run(problem, changes=False)
    if message is not None:
        raise ToolError(message)


async def _allowed(
    ctx: ToolContext, kind: PermissionKind, tool: str, target: str, detail: str, real: str | None
) -> None:
    resolved = _resolved_if_different(ctx, target, real)
    request = PermissionRequest(kind=kind, tool=tool, target=target, detail=detail, resolved=resolved)
    if not await ctx.permissions.request(request, real_path=real):
        if real is not None:
            session = ctx.session
            await ctx.runner.run(lambda: session.deny(real))
        raise ToolError(DENIED_TOOL_RESULT.format(kind=kind if kind != "memory" else "memory write", target=target))


def _resolved_if_different(ctx: ToolContext, target: str, real: str | None) -> str | None:
    """The real path when it is not where ``target`` seems to point: the prompt shows both."""
    if real is None:
        return None
    seeming = os.path.normpath(os.path.join(ctx.workspace_root or "", target))
    if seeming == real:
        return None
    workspace = real_path(ctx.workspace_root) if ctx.workspace_root else None
    if workspace and os.path.commonpath([real, workspace]) == workspace:
        return os.path.relpath(real, workspace)
    return real


def _write_roots(real: str, roots: AllowedRoots) -> AllowedRoots:
    """Where a write of ``real`` may land: the work roots, or for a file outside them the user admitted, its own
    folder (opened once)."""
    return roots if roots.root_of(os.path.dirname(real)) is not None else AllowedRoots.of(os.path.dirname(real))


def _read_text(real: str, display: str, roots: AllowedRoots) -> str:
    """The file's whole text (CRLF kept): a regular file up to the read cap, never blocking on a FIFO, opened
    with the verified open against the roots the write will use, so a file swapped for a link to one outside
    since it was resolved is refused, never read and written back into the workspace."""
    try:
        with open_gated(real, _write_roots(real, roots), max_bytes=MAX_READ_BYTES, named_by_user=True) as f:
            return f.read().decode("utf-8")
    except FileNotFoundError:
        raise ToolError(f"{display}: no such file") from None
    except FileTooLarge:
        limit = MAX_READ_BYTES // (1024 * 1024)
        raise ToolError(f"{display} is over {limit} MiB; edit_file works on files up to {limit} MiB") from None
    except NotRegularFile as exc:
        raise ToolError(f"{display}: {str(exc).rsplit(' is ', 1)[-1]}") from None
    except OutsideRoots:
        raise ToolError(
            f"{display} changed while it was opened (now a link elsewhere); the file is unchanged"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the last part was swapped for a link since it was resolved
            raise ToolError(f"{display} changed while it was opened (now a link); the file is unchanged") from None
        raise
    except UnicodeDecodeError:
        raise ToolError(f"{display} is not UTF-8 text; it cannot be edited as text") from None


def _write_text(real: str, text: str, roots: AllowedRoots) -> None:
    """All or nothing (``atomic_files``): a full disk leaves the old file whole and says so. The folder is reached
    from the root holding it without following links, so a folder swapped for a link out meanwhile is refused."""
    try:
        replace_file(real, text, roots=_write_roots(real, roots))
    except WriteFailed as exc:
        raise ToolError(str(exc)) from None


# -- edit_file ---------------------------------------------------------------------------------------------


async def _edit_file(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = path_arg(args)
    old = string_arg(args, "old_string")
    new = string_arg(args, "new_string", allow_empty=True)
    replace_all = bool(args.get("replace_all", False))
    if old == new:
        raise ToolError("old_string and new_string are the same: there is nothing to change")
    detail = f"{_preview(old, '- ')}\n{_preview(new, '+ ')}"
    display, real, asked = await ctx.resolve_admitting(path, edit=True, detail=detail)
    await _require_fresh_read(ctx, display, real)
    text = await run_io(_read_text, real, display, ctx.session.work_roots)
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {display}. Copy it exactly from the file (indentation included); "
            "read the file again if unsure."
        )
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {display}; add surrounding lines to make it unique, "
            "or set replace_all to change every occurrence"
        )
    if not asked:  # a file outside the workspace was just approved, with this very change shown
        await _allowed(ctx, "edit", "edit_file", display, detail, real)
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    await run_io(_write_text, real, updated, ctx.session.work_roots)

    def recorded() -> None:
        ctx.session.read_state.record_edit(real, ctx.tool_use_id or None)
        ctx.session.own_change(real, updated)

    await ctx.runner.run(recorded)
    times = f"{count} occurrences" if replace_all and count > 1 else "1 occurrence"
    return ToolOutput(f"Edited {display}: replaced {times}.")


def edit_file_tool() -> Tool:
    return Tool(
        name="edit_file",
        summary="replace an exact string in a file you have read",
        description=(
            "Replace an exact string in a text file. The file must have been read with read_file in this "
            "conversation and not changed since. old_string must match the file exactly (indentation "
            "included) and be unique unless replace_all is true."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "old_string": {"type": "string", "description": "the exact text to replace"},
                "new_string": {"type": "string", "description": "the text to put in its place"},
                "replace_all": {"type": "boolean", "description": "replace every occurrence"},
            },
            "required": ["file_path", "old_string", "new_string"],
        },
        run=_edit_file,
        permission="edit",
    )


# -- write_file --------------------------------------------------------------------------------------------


async def _write_file(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    path = path_arg(args)
    content = string_arg(args, "content", allow_empty=True)
    display, real, asked = await ctx.resolve_admitting(path, edit=True, detail=f"(overwrite)\n{_preview(content)}")
    exists = await run_io(os.path.lexists, real)
    if exists:
        if await run_io(os.path.isdir, real):
            raise ToolError(f"{display} is a directory")
        await _require_fresh_read(ctx, display, real)
    verb = "overwrite" if exists else "create"
    if not asked:
        await _allowed(ctx, "write", "write_file", display, f"({verb})\n{_preview(content)}", real)
    await run_io(_write_text, real, content, ctx.session.work_roots)

    def recorded() -> None:
        ctx.session.read_state.record_write(real, ctx.tool_use_id or None, content)
        ctx.session.own_change(real, content)

    await ctx.runner.run(recorded)
    lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return ToolOutput(f"{'Overwrote' if exists else 'Created'} {display} ({lines} line{'' if lines == 1 else 's'}).")


def write_file_tool() -> Tool:
    return Tool(
        name="write_file",
        summary="create a file, or overwrite one you have read",
        description=(
            "Write a whole text file. Creates missing folders. Overwriting an existing file needs a "
            "read_file of it first in this conversation; prefer edit_file for changes to existing files."
        ),
        input_schema={
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
        },
        run=_write_file,
        permission="write",
    )


# -- remember ----------------------------------------------------------------------------------------------

_SLUG = re.compile(r"[^a-z0-9]+")


def topic_slug(name: str) -> str:
    """``"Build & test commands"`` → ``"build-test-commands"``: a file name that cannot leave the root."""
    return _SLUG.sub("-", name.lower()).strip("-")[:60]


def index_line(name: str, slug: str, description: str) -> str:
    return f"- [{name}]({slug}.md): {' '.join(description.split())}"


def _update_index(index_path: str, slug: str, line: str) -> None:
    try:  # through the file gate: a FIFO or a link out of the folder at MEMORY.md must not block or leak
        lines = read_gated(index_path, AllowedRoots.of(os.path.dirname(index_path))).decode("utf-8").splitlines()
    except FileNotFoundError:
        lines = ["# Memory", ""]
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolError(f"cannot update {INDEX_FILE}: {exc}") from None
    marker = f"({slug}.md)"
    for i, existing in enumerate(lines):
        if marker in existing:
            lines[i] = line
            break
    else:
        lines.append(line)
    folder = AllowedRoots.of(os.path.dirname(index_path))
    _write_text(index_path, "\n".join(lines) + "\n", folder)  # replaced whole: never seen half-written


async def _remember(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    name = " ".join(string_arg(args, "name").split())
    description = string_arg(args, "description")
    content = string_arg(args, "content")
    slug = topic_slug(name)
    if not slug:
        raise ToolError("'name' needs letters or digits: it becomes the memory's file name")
    memory = ctx.session.memory
    root = memory.root("project")
    if root is None:
        raise ToolError(
            "there is no project memory folder (no workspace is open, or its .compact/memory leads outside the "
            "workspace), so nothing can be remembered"
        )
    topic_path = os.path.join(root.path, f"{slug}.md")
    index_path = os.path.join(root.path, INDEX_FILE)
    await run_io(os.makedirs, root.path, exist_ok=True)
    if memory.root_kind(topic_path) != "project" or memory.root_kind(index_path) != "project":
        raise ToolError(f"{topic_path} resolves outside the project memory folder; refusing to write it")
    display = os.path.relpath(topic_path, ctx.workspace_root) if ctx.workspace_root else topic_path
    await _allowed(ctx, "memory", "remember", display, _preview(content), real_path(topic_path))
    topic_real = real_path(topic_path)
    folder = AllowedRoots.of(os.path.dirname(topic_real))
    await run_io(_write_text, topic_real, f"# {name}\n\n{content.strip()}\n", folder)
    await run_io(_update_index, real_path(index_path), slug, index_line(name, slug, description))
    # the absolute path: memory reads are protected from microcompaction by their resolved path
    return ToolOutput(f"Saved memory '{name}' to {topic_path} and listed it in {INDEX_FILE}; read it by this path.")


def remember_tool() -> Tool:
    return Tool(
        name="remember",
        summary="save a durable note about this project to managed memory",
        description=(
            "Save a note for future sessions in the project's managed memory: writes a topic file and lists "
            "it in MEMORY.md (shown in the system prompt). Same name again replaces the note."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "short title; becomes the file name"},
                "description": {"type": "string", "description": "one line for the index"},
                "content": {"type": "string", "description": "the note (Markdown)"},
            },
            "required": ["name", "description", "content"],
        },
        run=_remember,
        permission="memory",
    )


# -- run_shell_command (off by default) ----------------------------------------------------------------------


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """Kill the command's whole process group (it runs in its own session), not only the shell."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    await proc.wait()


async def _shell(ctx: ToolContext, args: Mapping[str, Any]) -> ToolOutput:
    command = string_arg(args, "command")
    timeout = args.get("timeout_seconds", SHELL_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ToolError("'timeout_seconds' must be a positive number")
    if not ctx.workspace_root:
        raise ToolError("no workspace folder is open, so there is nowhere to run a command")
    await _allowed(ctx, "shell", "run_shell_command", command.splitlines()[0][:200], _preview(command), None)
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=ctx.workspace_root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), min(float(timeout), MAX_SHELL_TIMEOUT))
    except TimeoutError:
        await _stop(proc)
        raise ToolError(f"the command did not finish within {timeout:g} s and was stopped") from None
    except BaseException:
        await _stop(proc)
        raise
    text = bound(out.decode("utf-8", "replace")).rstrip("\n")
    return ToolOutput(f"{text}\n[exit code {proc.returncode}]".lstrip(), is_error=proc.returncode != 0)


def shell_tool() -> Tool:
    return Tool(
        name="run_shell_command",
        summary="run a shell command in the workspace root (asks first)",
        description=(
            "Run a shell command with the workspace root as the working directory; returns its combined "
            "output and exit code. The user is asked before every command unless they allowed all."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout_seconds": {"type": "number", "description": "default 120, at most 600"},
            },
            "required": ["command"],
        },
        run=_shell,
        permission="shell",
    )
