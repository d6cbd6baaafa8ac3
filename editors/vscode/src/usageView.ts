// The "Context usage" and "Rehydration preview" webviews: HTML from model/usagePage.ts, refreshed while visible.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { executeCommandParams } from "./model/commandModel";
import type { ContextItem } from "./model/contextPicture";
import { contextItems } from "./model/contextPicture";
import { escapeHtml, page } from "./model/html";
import { renderRehydrationPage, renderUsagePage } from "./model/usagePage";
import type { MessagesView, RehydrationPreview, Status } from "./protocol";
import { Methods, ServerCommands } from "./protocol";

/** A single webview panel that redraws itself from the server on demand. */
class ReportPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private pending: NodeJS.Timeout | undefined;

  constructor(
    private readonly viewType: string,
    private readonly title: string,
    private readonly render: (cspSource: string) => Promise<string>,
  ) {}

  async show(): Promise<void> {
    if (this.panel === undefined) {
      this.panel = vscode.window.createWebviewPanel(this.viewType, this.title, vscode.ViewColumn.Beside, {
        enableScripts: false,
      });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
      });
    } else {
      this.panel.reveal(undefined, true);
    }
    await this.refresh();
  }

  /** Redraws soon, coalescing bursts of usage notifications. */
  scheduleRefresh(): void {
    if (this.panel === undefined || this.pending !== undefined) {
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      void this.refresh();
    }, 250);
  }

  async refresh(): Promise<void> {
    const panel = this.panel;
    if (panel === undefined) {
      return;
    }
    const cspSource = panel.webview.cspSource;
    try {
      panel.webview.html = await this.render(cspSource);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      panel.webview.html = page(this.title, `<h1>${escapeHtml(this.title)}</h1><p>${escapeHtml(message)}</p>`, { cspSource });
    }
  }

  dispose(): void {
    clearTimeout(this.pending);
    this.panel?.dispose();
  }
}

export class UsageViews implements vscode.Disposable {
  private readonly usage: ReportPanel;
  private readonly rehydration: ReportPanel;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly client: CompactClient) {
    this.usage = new ReportPanel("compactLsp.usage", "Context usage", (csp) => this.renderUsage(csp));
    this.rehydration = new ReportPanel("compactLsp.rehydration", "Rehydration preview", (csp) =>
      this.renderRehydration(csp),
    );
    this.subscriptions = [
      client.onDidChangeUsage(() => {
        this.usage.scheduleRefresh();
        this.rehydration.scheduleRefresh();
      }),
      client.onDidCompact(() => this.usage.scheduleRefresh()),
    ];
  }

  showUsage(): Promise<void> {
    return this.usage.show();
  }

  showRehydrationPreview(): Promise<void> {
    return this.rehydration.show();
  }

  dispose(): void {
    this.usage.dispose();
    this.rehydration.dispose();
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private async renderUsage(cspSource: string): Promise<string> {
    const status = await this.client.executeCommand<Status>(
      executeCommandParams(ServerCommands.status, this.client.sessionId),
    );
    let items: ContextItem[] | undefined;
    try {
      const view = await this.client.request<MessagesView>(Methods.messages, { sessionId: status.sessionId });
      items = contextItems(view.messages, status.usage);
    } catch {
      items = undefined; // the picture still shows kinds and read files
    }
    return renderUsagePage(status, items, { cspSource });
  }

  private async renderRehydration(cspSource: string): Promise<string> {
    const preview = await this.client.executeCommand<RehydrationPreview>(
      executeCommandParams(ServerCommands.rehydrationPreview, this.client.sessionId),
    );
    return renderRehydrationPage(preview, { cspSource });
  }
}
