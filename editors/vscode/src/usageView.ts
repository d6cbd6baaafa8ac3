// The "Context usage" and "Rehydration preview" pages share one reusable webview panel: it opens in the active
// editor group (never a new group), redraws while visible, and comes back after a reload (a panel serializer), so
// no empty groups are left behind.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { Commands } from "./model/commandIds";
import { executeCommandParams, failureOutcome } from "./model/commandModel";
import type { ContextItem } from "./model/contextPicture";
import type { PageOptions } from "./model/html";
import { contextItems } from "./model/contextPicture";
import { escapeHtml, nonce, page } from "./model/html";
import { renderRehydrationPage, renderUsagePage } from "./model/usagePage";
import type { MessagesView, RehydrationPreview, Status } from "./protocol";
import { Methods, ServerCommands } from "./protocol";

export const REPORT_VIEW_TYPE = "compactLsp.report";

type Report = "usage" | "rehydration";

const TITLES: Record<Report, string> = { usage: "Context usage", rehydration: "Rehydration preview" };

export class UsageViews implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private report: Report = "usage";
  private pending: NodeJS.Timeout | undefined;
  /** A redraw is being rendered; `stale`: something changed meanwhile (a compaction ended), so draw again after. */
  private rendering = false;
  private stale = false;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly client: CompactClient) {
    this.subscriptions = [
      client.onDidChangeUsage((event) => {
        if (event.sessionId === client.sessionId) {
          this.scheduleRefresh();
        }
      }),
      client.onDidCompact(() => this.scheduleRefresh()),
      client.onDidChangeCurrentSession(() => this.scheduleRefresh()),
      vscode.window.registerWebviewPanelSerializer(REPORT_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown) => {
          const report = (state as { report?: unknown } | undefined)?.report;
          this.adopt(panel, report === "rehydration" ? "rehydration" : "usage");
          await this.refresh();
        },
      }),
    ];
  }

  showUsage(): Promise<void> {
    return this.show("usage");
  }

  showRehydrationPreview(): Promise<void> {
    return this.show("rehydration");
  }

  dispose(): void {
    clearTimeout(this.pending);
    this.panel?.dispose();
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private async show(report: Report): Promise<void> {
    if (this.panel === undefined) {
      const panel = vscode.window.createWebviewPanel(
        REPORT_VIEW_TYPE,
        TITLES[report],
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { enableScripts: true, enableCommandUris: [Commands.showWorkingSet] },
      );
      this.adopt(panel, report);
    } else {
      this.report = report;
      this.panel.title = TITLES[report];
      this.panel.reveal(undefined, false);
    }
    await this.refresh();
  }

  private adopt(panel: vscode.WebviewPanel, report: Report): void {
    this.panel?.dispose();
    this.panel = panel;
    this.report = report;
    panel.title = TITLES[report];
    panel.webview.options = { enableScripts: true, enableCommandUris: [Commands.showWorkingSet] };
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
      }
    });
    panel.onDidChangeViewState(() => {
      if (panel.visible) {
        this.scheduleRefresh();
      }
    });
  }

  /** Redraws soon, coalescing bursts of usage notifications; never drops a change that comes mid-redraw. */
  private scheduleRefresh(): void {
    if (this.panel === undefined || !this.panel.visible || this.pending !== undefined) {
      return;
    }
    if (this.rendering) {
      this.stale = true; // the page being drawn may predate this change (the compaction that just ended)
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      void this.refresh();
    }, 250);
  }

  private async refresh(): Promise<void> {
    const panel = this.panel;
    if (panel === undefined) {
      return;
    }
    const report = this.report;
    const options = { cspSource: panel.webview.cspSource, nonce: nonce() };
    let html: string;
    this.rendering = true;
    try {
      html = report === "usage" ? await this.renderUsage(options) : await this.renderRehydration(options);
    } catch (error) {
      const message = failureOutcome(TITLES[report], error).text;
      html = page(TITLES[report], `<h1>${escapeHtml(TITLES[report])}</h1><p>${escapeHtml(message)}</p>`, options);
    } finally {
      this.rendering = false;
    }
    if (this.stale) {
      this.stale = false;
      this.scheduleRefresh();
    }
    // The serializer gets the report back after a reload: a one-line script stores it as the webview's state.
    const state = `<script nonce="${options.nonce}">acquireVsCodeApi().setState(${JSON.stringify({ report })});</script>`;
    panel.webview.html = html.replace("</body>", `${state}</body>`);
  }

  private async renderUsage(options: PageOptions): Promise<string> {
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
    return renderUsagePage(status, items, options);
  }

  private async renderRehydration(options: PageOptions): Promise<string> {
    const preview = await this.client.executeCommand<RehydrationPreview>(
      executeCommandParams(ServerCommands.rehydrationPreview, this.client.sessionId),
    );
    return renderRehydrationPage(preview, options);
  }
}
