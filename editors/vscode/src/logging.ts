// The extension's one log: a LogOutputChannel shared with the language client (server stderr lands here too).
import * as vscode from "vscode";

let channel: vscode.LogOutputChannel | undefined;

export function createLog(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel("Compact", { log: true });
  return channel;
}

export function log(): vscode.LogOutputChannel {
  return createLog();
}
