// The status bar gauge of the current session; what it shows comes from model/statusBarState.ts.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { statusBarState } from "./model/statusBarState";

export function createStatusBar(client: CompactClient): vscode.Disposable {
  const item = vscode.window.createStatusBarItem("compactLsp.usage", vscode.StatusBarAlignment.Right, 100);
  item.name = "Compact: context usage";
  const update = (): void => {
    const trust = vscode.workspace.isTrusted ? client.state : "restricted";
    const state = statusBarState(client.usage, trust, client.owners.readOnlyOwner(client.sessionId));
    item.text = state.text;
    item.tooltip = state.tooltip;
    item.command = state.command;
    item.backgroundColor =
      state.background === "warning" ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    item.show();
  };
  update();
  return vscode.Disposable.from(
    item,
    client.onDidChangeUsage(update),
    client.onDidChangeState(update),
    client.onDidChangeCurrentSession(update),
    vscode.workspace.onDidGrantWorkspaceTrust(update),
  );
}
