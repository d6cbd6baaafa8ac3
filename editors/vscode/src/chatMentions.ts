// The chat's input and its `@` mentions: the files offered as the user types after an `@`, and the mentioned files
// attached to the message as it is sent (read through the server, within its roots and limits). The text rules
// are model/mentions.ts.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { failureOutcome } from "./model/commandModel";
import { mentionedPaths, withAttachments } from "./model/mentions";
import { notify } from "./notify";
import { isFile, resolveWorkspacePath } from "./proposedChanges";
import { Methods } from "./protocol";

/** Files whose path holds what follows the `@`, for the input's suggestion list (at most 8, workspace-relative). */
export async function suggestFiles(query: string): Promise<string[]> {
  const safe = query.replace(/[^\w./~-]/g, "");
  const found = await vscode.workspace.findFiles(`**/*${safe}*`, "**/{node_modules,.git,.venv,__pycache__}/**", 8);
  return found.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort((a, b) => a.length - b.length);
}

/** `@path` mentions of existing files: read through the server (its roots and limits), attached to the message. */
export async function attachMentions(client: CompactClient, sessionId: string, text: string): Promise<string> {
  const files: { path: string; content: string }[] = [];
  for (const mention of mentionedPaths(text)) {
    const uri = resolveWorkspacePath(mention);
    if (uri === undefined || !(await isFile(uri))) {
      continue; // not a file: an @ that is just text
    }
    try {
      const read = await client.request<{ path: string; content: string }>(Methods.readFile, { sessionId, path: mention });
      files.push({ path: mention, content: read.content });
    } catch (error) {
      notify(failureOutcome(`Attaching ${mention}`, error)); // outside the roots, binary, too big: said once
    }
  }
  return withAttachments(text, files);
}

/** The title of a session the chat creates: its first message's first line, at most 60 characters. */
export function chatTitle(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}
