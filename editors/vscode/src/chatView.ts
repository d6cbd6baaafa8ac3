// The chat webview: compact/chat requests out, compact/chatEvent notifications in, drawn by model/chatPage.ts.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import type { ChatTranscript } from "./model/chatModel";
import { EMPTY_TRANSCRIPT, applyChatEvent, endTurn, startTurn } from "./model/chatModel";
import { parseChatViewRequest, renderChatShell, transcriptMessage } from "./model/chatPage";
import { nonce } from "./model/html";
import type { ChatResult } from "./protocol";
import { Methods } from "./protocol";

export class ChatView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private transcript: ChatTranscript = EMPTY_TRANSCRIPT;
  /** The chat's own session, created on the first message. */
  private sessionId: string | undefined;
  private turn: vscode.CancellationTokenSource | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly client: CompactClient,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = client.onChatEvent((event) => {
      if (event.sessionId === this.sessionId) {
        this.update(applyChatEvent(this.transcript, event));
      }
    });
  }

  show(): void {
    if (this.panel !== undefined) {
      this.panel.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel("compactLsp.chat", "Compact chat", vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
    });
    panel.webview.html = renderChatShell({ cspSource: panel.webview.cspSource, nonce: nonce() });
    panel.webview.onDidReceiveMessage((raw) => {
      const request = parseChatViewRequest(raw);
      if (request?.type === "send") {
        void this.send(request.text);
      } else if (request?.type === "stop") {
        this.turn?.cancel();
      } else if (request?.type === "ready") {
        this.post();
      }
    });
    panel.onDidDispose(() => {
      this.turn?.cancel();
      this.panel = undefined;
    });
    this.panel = panel;
  }

  dispose(): void {
    this.turn?.cancel();
    this.subscription.dispose();
    this.panel?.dispose();
  }

  private async send(text: string): Promise<void> {
    if (this.transcript.busy) {
      return;
    }
    this.update(startTurn(this.transcript, text));
    const turn = new vscode.CancellationTokenSource();
    this.turn = turn;
    try {
      if (this.sessionId === undefined) {
        const created = await this.client.request<{ sessionId: string }>(Methods.newSession, { title: chatTitle(text) });
        this.sessionId = created.sessionId;
      }
      this.client.focusSession(this.sessionId);
      const result = await this.client.request<ChatResult>(
        Methods.chat,
        { sessionId: this.sessionId, text },
        turn.token,
      );
      this.update(endTurn(this.transcript, result));
    } catch (error) {
      const stopped = turn.token.isCancellationRequested;
      const message = stopped ? "Stopped." : error instanceof Error ? error.message : String(error);
      if (!stopped) {
        this.log.error(`compact/chat failed: ${message}`);
      }
      this.update(endTurn(this.transcript, undefined, message));
    } finally {
      turn.dispose();
      if (this.turn === turn) {
        this.turn = undefined;
      }
    }
  }

  private update(transcript: ChatTranscript): void {
    this.transcript = transcript;
    this.post();
  }

  private post(): void {
    void this.panel?.webview.postMessage(transcriptMessage(this.transcript));
  }
}

function chatTitle(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}
