// "Show diff" on a permission prompt: VS Code's diff editor, the file as it is on the left, the agent's proposal on
// the right (a read-only virtual document of the compact-proposed: scheme).
import * as path from "node:path";
import * as vscode from "vscode";
import { proposedChange } from "./model/proposedChange";

const SCHEME = "compact-proposed";

export class ProposedChanges implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  /** The documents shown for each permission prompt (its id → their keys), so its tab closes after the decision. */
  private readonly shown = new Map<string, string[]>();
  private readonly registration: vscode.Disposable;
  private counter = 0;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? "";
  }

  /** Opens the diff editor for an edit_file/write_file input; false when the tool changes no file. */
  async show(tool: string, input: unknown, owner = ""): Promise<boolean> {
    const file = this.resolve(input);
    if (file === undefined) {
      return false;
    }
    const before = await readText(file);
    const change = proposedChange(tool, input, before);
    if (change === undefined) {
      return false;
    }
    const key = String(++this.counter);
    this.texts.set(key, change.after);
    this.shown.set(owner, [...(this.shown.get(owner) ?? []), key]);
    const name = path.basename(file.fsPath);
    const right = vscode.Uri.from({ scheme: SCHEME, path: file.path, query: key });
    let left = file;
    if (before === undefined) {
      this.texts.set(`${key}-empty`, "");
      left = vscode.Uri.from({ scheme: SCHEME, path: file.path, query: `${key}-empty` });
    }
    const title = `${name}: now ↔ the agent's proposal${before === undefined ? " (new file)" : ""}`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: true });
    if (change.problem !== undefined) {
      void vscode.window.showWarningMessage(`Compact: ${change.problem} The edit will be refused if you allow it.`);
    }
    return true;
  }

  /** The prompt was answered: its diff tabs close (the user saw what they decided on) and their texts go. */
  async close(owner: string): Promise<void> {
    const keys = this.shown.get(owner);
    if (keys === undefined) {
      return;
    }
    this.shown.delete(owner);
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => {
        const input = tab.input;
        return (
          input instanceof vscode.TabInputTextDiff && input.modified.scheme === SCHEME && keys.includes(input.modified.query)
        );
      });
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
    for (const key of keys) {
      this.texts.delete(key);
      this.texts.delete(`${key}-empty`);
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }

  private resolve(input: unknown): vscode.Uri | undefined {
    const filePath = (input as { file_path?: unknown } | undefined)?.file_path;
    if (typeof filePath !== "string" || filePath === "") {
      return undefined;
    }
    return resolveWorkspacePath(filePath);
  }
}

/** A path the agent gave (workspace-relative or absolute) as a file URI. */
export function resolveWorkspacePath(filePath: string): vscode.Uri | undefined {
  if (path.isAbsolute(filePath)) {
    return vscode.Uri.file(filePath);
  }
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  return root === undefined ? undefined : vscode.Uri.joinPath(root, filePath);
}

/** What the tool will see: the file on disk (not an unsaved buffer); undefined when it does not exist. */
export async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** Whether `uri` is a file on disk (not a folder, not missing). */
export async function isFile(uri: vscode.Uri): Promise<boolean> {
  try {
    return (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.File;
  } catch {
    return false;
  }
}
