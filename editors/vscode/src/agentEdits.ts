// After the agent edits or writes a file: an open editor shows the new content. A clean editor is reloaded from
// disk; an editor with unsaved changes is never overwritten silently: the user is asked.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import type { ChatEvent } from "./protocol";
import { resolveWorkspacePath } from "./proposedChanges";

const WRITING_TOOLS = new Set(["edit_file", "write_file"]);

export function watchAgentEdits(client: CompactClient, log: vscode.LogOutputChannel): vscode.Disposable {
  /** tool_use id → the file it writes, until its result arrives. */
  const pending = new Map<string, string>();
  return client.onChatEvent((event: ChatEvent) => {
    if (event.kind === "tool_use" && typeof event.id === "string" && WRITING_TOOLS.has(String(event.name))) {
      const filePath = (event.input as { file_path?: unknown } | undefined)?.file_path;
      if (typeof filePath === "string") {
        pending.set(event.id, filePath);
      }
    } else if (event.kind === "tool_result" && typeof event.toolUseId === "string") {
      const filePath = pending.get(event.toolUseId);
      pending.delete(event.toolUseId);
      if (filePath !== undefined && event.isError !== true) {
        void showAgentEdit(filePath).catch((error: unknown) => log.warn(`Refreshing ${filePath}: ${String(error)}`));
      }
    }
  });
}

async function showAgentEdit(filePath: string): Promise<void> {
  const uri = resolveWorkspacePath(filePath);
  if (uri === undefined) {
    return;
  }
  const document = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
  if (document === undefined) {
    return;
  }
  if (!document.isDirty) {
    // VS Code's file watcher reloads a clean document by itself; make sure of it where one is shown.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const shown = vscode.window.visibleTextEditors.some((editor) => editor.document === document);
    if (shown && !document.isDirty && document.getText() !== onDisk) {
      await revert(document);
    }
    return;
  }
  const name = vscode.workspace.asRelativePath(uri);
  const choice = await vscode.window.showWarningMessage(
    `Compact: the agent changed ${name} on disk, but its editor has unsaved changes.`,
    "Compare",
    "Load the Agent's Version",
    "Keep My Changes",
  );
  if (choice === "Compare") {
    await vscode.window.showTextDocument(document, { preview: false });
    await vscode.commands.executeCommand("workbench.files.action.compareWithSaved");
  } else if (choice === "Load the Agent's Version") {
    await revert(document);
  }
}

/** Reloads a document from disk (File: Revert File on it), keeping the user's focus where it was. */
async function revert(document: vscode.TextDocument): Promise<void> {
  const active = vscode.window.activeTextEditor;
  await vscode.window.showTextDocument(document, { preview: false, preserveFocus: false });
  await vscode.commands.executeCommand("workbench.action.files.revert");
  if (active !== undefined && active.document !== document) {
    await vscode.window.showTextDocument(active.document, { viewColumn: active.viewColumn });
  }
}
