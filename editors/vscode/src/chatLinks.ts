// What the chat's transcript opens: a link in an answer (a workspace file at its line, or a web page) and a
// compaction marker's summary (the text the model read instead of the earlier messages).
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { failureOutcome } from "./model/commandModel";
import { linkTarget } from "./model/fileLinks";
import { notify } from "./notify";
import { isFile, resolveWorkspacePath } from "./proposedChanges";
import { Methods } from "./protocol";

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

/** The `index`th compaction marker of a session: the summary the model read instead, as a Markdown preview. */
export async function openSummary(client: CompactClient, sessionId: string, index: number): Promise<void> {
  try {
    const answer = await client.request<{ entries?: unknown[] }>(Methods.transcript, { sessionId });
    const boundaries = (answer.entries ?? []).filter(
      (entry): entry is { kind: "compaction"; summary?: string | null } =>
        typeof entry === "object" && entry !== null && (entry as { kind?: unknown }).kind === "compaction",
    );
    const summary = boundaries[index]?.summary;
    if (typeof summary !== "string" || summary === "") {
      notify({ severity: "info", text: "This compaction's summary is not stored with the session." });
      return;
    }
    const document = await vscode.workspace.openTextDocument({
      language: "markdown",
      content: `# Summary of the conversation before this compaction\n\nWhat the model read instead of the earlier messages.\n\n${summary}\n`,
    });
    await vscode.window.showTextDocument(document, { preview: true });
  } catch (error) {
    notify(failureOutcome("Opening the summary", error));
  }
}
