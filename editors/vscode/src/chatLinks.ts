// What the chat's transcript opens: a link in an answer (a workspace file at its line, or a web page) and a
// compaction marker's summary (the text the model read instead of the earlier messages).
import * as vscode from "vscode";
import { failureOutcome } from "./model/commandModel";
import { linkTarget } from "./model/fileLinks";
import { notify } from "./notify";
import { isFile, resolveWorkspacePath } from "./proposedChanges";
import { SummaryDocuments } from "./summaryDocuments";

/** A link in an answer: a workspace file opens at its line; a web page opens in the browser (VS Code asks). */
export async function openLink(href: string): Promise<void> {
  const target = linkTarget(href);
  if (target === undefined) {
    return;
  }
  if (target.kind === "external") {
    await vscode.env.openExternal(vscode.Uri.parse(target.url));
    return;
  }
  const uri = resolveWorkspacePath(target.path);
  if (uri === undefined || !(await isFile(uri))) {
    notify({ severity: "info", text: `There is no file ${target.path} in this workspace.` });
    return;
  }
  const options: vscode.TextDocumentShowOptions = { preview: true };
  if (target.line !== undefined) {
    const start = new vscode.Position(target.line - 1, (target.column ?? 1) - 1);
    const end = target.endLine !== undefined ? new vscode.Position(target.endLine - 1, Number.MAX_SAFE_INTEGER) : start;
    options.selection = new vscode.Range(start, end);
  }
  await vscode.window.showTextDocument(uri, options);
}

/** The `index`th compaction marker of a session: the summary the model read instead, read-only, as Markdown. */
export async function openSummary(sessionId: string, index: number): Promise<void> {
  try {
    const document = await vscode.workspace.openTextDocument(SummaryDocuments.uri(sessionId, index));
    await vscode.window.showTextDocument(document, { preview: true });
  } catch (error) {
    notify(failureOutcome("Opening the summary", error));
  }
}
