// "Compact: Show Working Set": a session's working set (compact/workingSet) in a read-only webview panel, its files
// opened by a click. One panel, reused; it redraws when the session changes or compacts, and when shown again.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { Commands } from "./model/commandIds";
import { failureOutcome } from "./model/commandModel";
import { escapeHtml, nonce, page } from "./model/html";
import { renderWorkingSetPage } from "./model/workingSetPage";
import { notify } from "./notify";
import type { WorkingSetResult } from "./protocol";
import { Methods } from "./protocol";

export const WORKING_SET_VIEW_TYPE = "compactLsp.workingSet";

export class WorkingSetView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private sessionId: string | undefined;
  private shown: WorkingSetResult | undefined;
  private pending: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly client: CompactClient) {
    this.subscriptions = [
      client.onDidChangeUsage((event) => {
        if (event.sessionId === this.sessionId) {
          this.scheduleRefresh();
        }
      }),
      client.onDidCompact(() => this.scheduleRefresh()),
      vscode.commands.registerCommand(Commands.showWorkingSet, async (arg?: unknown) => {
        try {
          await this.show(sessionOf(arg) ?? client.sessionId);
        } catch (error) {
          notify(failureOutcome("Working set", error));
        }
      }),
    ];
  }

  async show(sessionId: string | undefined): Promise<void> {
    if (sessionId === undefined) {
      notify({ severity: "info", text: "No session yet: the working set shows what a session's agent did." });
      return;
    }
    this.sessionId = sessionId;
    if (this.panel === undefined) {
      const panel = vscode.window.createWebviewPanel(
        WORKING_SET_VIEW_TYPE,
        "Working set",
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { enableScripts: true },
      );
      panel.onDidDispose(() => {
        this.panel = undefined;
      });
      panel.onDidChangeViewState(() => {
        if (panel.visible) {
          this.scheduleRefresh();
        }
      });
      panel.webview.onDidReceiveMessage((message: unknown) => void this.open(message));
      this.panel = panel;
    } else {
      this.panel.reveal(undefined, false);
    }
    await this.refresh();
  }

  /** Open the file of the row the page named (by index: the page never names a URI itself). */
  private async open(message: unknown): Promise<void> {
    const index = (message as { open?: unknown } | undefined)?.open;
    const row = typeof index === "number" ? this.shown?.rows[index] : undefined;
    if (row?.uri === undefined) {
      return;
    }
    try {
      await vscode.window.showTextDocument(vscode.Uri.parse(row.uri, true), { preview: false });
    } catch (error) {
      notify(failureOutcome(`Opening ${row.path ?? "the file"}`, error));
    }
  }

  private scheduleRefresh(): void {
    if (this.panel === undefined || !this.panel.visible || this.pending !== undefined) {
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = undefined;
      void this.refresh();
    }, 250);
  }

  private async refresh(): Promise<void> {
    const panel = this.panel;
    const sessionId = this.sessionId;
    if (panel === undefined || sessionId === undefined) {
      return;
    }
    const options = { cspSource: panel.webview.cspSource, nonce: nonce() };
    try {
      const result = await this.client.request<WorkingSetResult>(Methods.workingSet, { sessionId });
      this.shown = result;
      panel.webview.html = renderWorkingSetPage(result, await this.title(sessionId), options);
    } catch (error) {
      const message = failureOutcome("Working set", error).text;
      panel.webview.html = page("Working set", `<h1>Working set</h1><p>${escapeHtml(message)}</p>`, options);
    }
  }

  private async title(sessionId: string): Promise<string> {
    try {
      const session = (await this.client.listSessions()).find((s) => s.sessionId === sessionId);
      return session?.title || sessionId;
    } catch {
      return sessionId; // the list is only for the heading
    }
  }

  dispose(): void {
    clearTimeout(this.pending);
    this.panel?.dispose();
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }
}

/** A session from the Sessions tree (its item) or a command argument (`{sessionId}`). */
function sessionOf(arg: unknown): string | undefined {
  const id = typeof arg === "string" ? arg : (arg as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof id === "string" ? id : undefined;
}
