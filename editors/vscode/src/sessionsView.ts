// The Sessions tree in the Compact side bar: every session of the workspace, the current one marked. Clicking one
// makes it current (the chat, the gauge and the commands follow it). Claude Code's sessions (read-only) are listed
// beside ours, marked; opening one shows its live usage. A row's figures follow the usage the server sends for its
// session (model/sessions.ts SessionRows), redrawn without listing again.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { Commands } from "./model/commandIds";
import { SessionRows, sessionContextValue, sessionDescription, sessionIcon, sessionTooltip } from "./model/sessions";
import type { SessionItem as SessionInfo } from "./model/sessions";
import type { Usage } from "./protocol";

export const SESSIONS_VIEW_ID = "compactLsp.sessions";

export class SessionsView implements vscode.TreeDataProvider<SessionInfo>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionInfo[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  private readonly tree: vscode.TreeView<SessionInfo>;
  private pending: NodeJS.Timeout | undefined;
  /** Rows whose figures changed since the last redraw (a whole redraw, pending, lists them afresh anyway). */
  private readonly stale = new Set<SessionInfo>();
  private pendingRows: NodeJS.Timeout | undefined;
  private readonly rows = new SessionRows();

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
      client.onDidChangeUsage((event) => this.usageChanged(event.sessionId, event.usage)),
    ];
  }

  /** A session's usage changed: its row's figures are redrawn soon, coalescing bursts, without listing again. */
  private usageChanged(sessionId: string, usage: Usage): void {
    const row = this.rows.usage(sessionId, usage);
    if (row === undefined) {
      return;
    }
    this.stale.add(row);
    if (this.pendingRows === undefined) {
      this.pendingRows = setTimeout(() => {
        this.pendingRows = undefined;
        const rows = [...this.stale];
        this.stale.clear();
        if (this.pending === undefined && rows.length > 0) {
          this.changed.fire(rows);
        }
      }, 200);
    }
  }

  /** Redraws soon, coalescing bursts. */
  refresh(): void {
    if (this.pending === undefined) {
      this.pending = setTimeout(() => {
        this.pending = undefined;
        this.changed.fire(undefined);
      }, 200);
    }
  }

  /** A listed session, with its latest figures. */
  byId(sessionId: string): SessionInfo | undefined {
    const row = this.rows.byId(sessionId);
    return row === undefined ? undefined : this.rows.shown(row);
  }

  getTreeItem(row: SessionInfo): vscode.TreeItem {
    const session = this.rows.shown(row);
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
    this.rows.listing();
    let sessions: SessionInfo[];
    try {
      sessions = await this.client.listSessions();
    } catch {
      sessions = [];
    }
    this.rows.listed(sessions);
    this.onTitles(sessions);
    return sessions;
  }

  dispose(): void {
    clearTimeout(this.pending);
    clearTimeout(this.pendingRows);
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}
