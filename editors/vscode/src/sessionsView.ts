// The Sessions tree in the Compact side bar: every session of the workspace, the current one marked. Clicking one
// makes it current (the chat, the gauge and the commands follow it). Claude Code's sessions (read-only) are listed
// beside ours, marked; opening one shows its live usage.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { Commands } from "./model/commandIds";
import { sessionContextValue, sessionDescription, sessionIcon, sessionTooltip } from "./model/sessions";
import type { SessionItem as SessionInfo } from "./model/sessions";

export const SESSIONS_VIEW_ID = "compactLsp.sessions";

export class SessionsView implements vscode.TreeDataProvider<SessionInfo>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  private readonly tree: vscode.TreeView<SessionInfo>;
  private pending: NodeJS.Timeout | undefined;
  private sessions: SessionInfo[] = [];

  constructor(
    private readonly client: CompactClient,
    private readonly onTitles: (sessions: SessionInfo[]) => void,
  ) {
    this.tree = vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false });
    this.subscriptions = [
      this.tree,
      this.changed,
      client.onDidChangeCurrentSession(() => this.refresh()),
      client.onDidChangeSessions(() => this.refresh()),
      client.onDidCompact(() => this.refresh()),
      client.onDidChangeState(() => this.refresh()),
    ];
  }

  /** Redraws soon, coalescing bursts. */
  refresh(): void {
    if (this.pending === undefined) {
      this.pending = setTimeout(() => {
        this.pending = undefined;
        this.changed.fire();
      }, 200);
    }
  }

  byId(sessionId: string): SessionInfo | undefined {
    return this.sessions.find((session) => session.sessionId === sessionId);
  }

  getTreeItem(session: SessionInfo): vscode.TreeItem {
    const current = session.sessionId === this.client.sessionId;
    const item = new vscode.TreeItem(session.title || session.sessionId, vscode.TreeItemCollapsibleState.None);
    item.id = session.sessionId;
    item.description = sessionDescription(session, current, new Date());
    item.tooltip = new vscode.MarkdownString(sessionTooltip(session, current));
    item.iconPath = new vscode.ThemeIcon(
      sessionIcon(session, current),
      current ? new vscode.ThemeColor("charts.blue") : undefined,
    );
    item.contextValue = sessionContextValue(session, current);
    item.command = { command: Commands.selectSession, title: "Open Chat", arguments: [session] };
    return item;
  }

  async getChildren(element?: SessionInfo): Promise<SessionInfo[]> {
    if (element !== undefined || this.client.state !== "running") {
      return [];
    }
    try {
      this.sessions = await this.client.listSessions();
    } catch {
      this.sessions = [];
    }
    this.onTitles(this.sessions);
    return this.sessions;
  }

  dispose(): void {
    clearTimeout(this.pending);
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
