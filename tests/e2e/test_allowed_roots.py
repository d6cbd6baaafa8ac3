"""Multi-root workspaces and added directories, end to end: rehydration draws from every allowed root only."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import SERVER, Workspace, initialize_params, stop_server
from .conversation import append, command, new_session, read_file, read_round, start


async def test_rehydration_uses_every_workspace_folder_and_added_directory(workspace: Workspace) -> None:
    second = workspace.root.parent / "second-folder"
    added = workspace.root.parent / "added"
    elsewhere = workspace.root.parent / "elsewhere"
    files = {
        "main": workspace.write("main.py", "x = 1\n"),
        "second": second / "b.py",
        "added": added / "c.py",
        "elsewhere": elsewhere / "d.py",
    }
    for path in list(files.values())[1:]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {path.name}\n")
    params = initialize_params(workspace, workspace.options(additionalDirectories=[str(added)]))
    params.workspace_folders = [*(params.workspace_folders or []), types.WorkspaceFolder(second.as_uri(), "second")]
    lsp = await SERVER.start()
    await lsp.initialize_session(params)
    try:
        session_id = await new_session(lsp)
        conversation = start()
        for i, path in enumerate(files.values()):
            conversation += read_round(f"toolu_{i}", str(path), path.read_text())
        await append(lsp, session_id, conversation)
        preview = await command(lsp, "compact.rehydrationPreview", {"sessionId": session_id})
        included = {c["path"] for c in preview["candidates"] if c["included"]}
        assert included == {"main.py", str(files["second"]), str(files["added"])}
        [left_out] = [c for c in preview["candidates"] if not c["included"]]
        assert left_out["path"] == str(files["elsewhere"]) and left_out["reason"] == "outside the workspace roots"
        # a client's own reads (compact/readFile) follow the same roots
        for name in ("second", "added"):
            read = await read_file(lsp, session_id, str(files[name]))
            assert read["content"] == files[name].read_text()
        with pytest.raises(Exception, match="outside the workspace"):
            await read_file(lsp, session_id, str(files["elsewhere"]))
    finally:
        await stop_server(lsp)


async def test_a_folder_added_to_the_workspace_later_becomes_an_allowed_root(
    client: LanguageClient, workspace: Workspace
) -> None:
    later = workspace.root.parent / "added-later"
    later.mkdir()
    (later / "lib.py").write_text("y = 2\n")
    session_id = await new_session(client)
    await append(client, session_id, start() + read_round("toolu_1", str(later / "lib.py"), "y = 2\n"))

    async def included() -> set[str]:
        preview = await command(client, "compact.rehydrationPreview", {"sessionId": session_id})
        return {c["path"] for c in preview["candidates"] if c["included"]}

    assert await included() == set()
    added = types.WorkspaceFoldersChangeEvent(added=[types.WorkspaceFolder(later.as_uri(), "later")], removed=[])
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=added))
    assert await included() == {str(later / "lib.py")}
    removed = types.WorkspaceFoldersChangeEvent(added=[], removed=[types.WorkspaceFolder(later.as_uri(), "later")])
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=removed))
    assert await included() == set()
