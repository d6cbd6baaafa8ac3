// The chat, a webview view in the Compact side bar: compact/chat requests out, compact/chatEvent notifications in,
// drawn by model/chatPage.ts. It shows the current session (the sessions tree switches it) and restores it from
// the server after a reload. Permission prompts of a running turn are answered inline.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { isMethodNotFound } from "./client";
import type { ApprovalState, ChatTranscript } from "./model/chatModel";
import {
  EMPTY_TRANSCRIPT,
  addMarker,
  applyChatEvent,
  endTurn,
  requestApproval,
  resolveApproval,
  startTurn,
} from "./model/chatModel";
import { parseChatViewRequest, renderChatShell, transcriptMessage } from "./model/chatPage";
import { transcriptFromMessages, transcriptFromRecords } from "./model/chatRestore";
import { nonce } from "./model/html";
import { setPinned } from "./pins";
import type { ProposedChanges } from "./proposedChanges";
import type { ChatResult, DidCompactParams, MessagesView } from "./protocol";
import { Methods } from "./protocol";

export const CHAT_VIEW_ID = "compactLsp.chat";

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** Transcripts by session id, loaded from the server on first show. */
  private readonly transcripts = new Map<string, ChatTranscript>();
  /** Running turns by session id. */
  private readonly turns = new Map<string, vscode.CancellationTokenSource>();
  /** Open permission prompts: approval id → the answer's resolver. */
  private readonly approvals = new Map<string, { sessionId: string; resolve: (title: ApprovalState) => void }>();
  private readonly titles = new Map<string, string>();
  private readonly subscriptions: vscode.Disposable[];
  private approvalCounter = 0;
  private posting: NodeJS.Timeout | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: CompactClient,
    private readonly changes: ProposedChanges,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      client.onChatEvent((event) => this.updateSession(event.sessionId, (t) => applyChatEvent(t, event))),
      client.onDidCompact((event) => this.compacted(event)),
      client.onDidChangeCurrentSession(() => void this.showCurrent()),
      client.onDidChangeState((state) => {
        if (state === "running") {
          this.transcripts.clear(); // a restarted server: read the sessions afresh
          void this.showCurrent();
        }
      }),
    ];
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = renderChatShell({
      cspSource: view.webview.cspSource,
      nonce: nonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js")).toString(),
      styleUris: [view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "codicon.css")).toString()],
    });
    view.webview.onDidReceiveMessage((raw) => this.receive(raw));
    view.onDidDispose(() => {
      this.view = undefined;
    });
    this.view = view;
    void this.showCurrent();
  }

  /** Reveals the chat in the side bar (Compact: Open Chat). */
  async show(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  get visible(): boolean {
    return this.view?.visible === true;
  }

  /**
   * A permission prompt (window/showMessageRequest with the Allow/Deny actions): shown in the chat of the turn
   * that is running. Undefined when no turn runs here (the caller then shows a toast).
   */
  askApproval(prompt: string): Promise<ApprovalState> | undefined {
    const sessionId = this.busySession();
    if (sessionId === undefined) {
      return undefined;
    }
    const id = `approval-${++this.approvalCounter}`;
    this.updateSession(sessionId, (t) => requestApproval(t, id, prompt));
    return new Promise((resolve) => {
      this.approvals.set(id, { sessionId, resolve });
    });
  }

  /** Answers an open prompt from elsewhere (the fallback toast); the chat shows the answer. */
  answerApproval(state: ApprovalState): void {
    for (const id of this.approvals.keys()) {
      this.answer(id, state);
    }
  }

  /** A new chat: nothing current until the first message creates its session. */
  async newChat(): Promise<void> {
    await this.client.selectSession(undefined);
    await this.show();
  }

  rememberTitle(sessionId: string, title: string): void {
    this.titles.set(sessionId, title);
    if (sessionId === this.client.sessionId) {
      this.post();
    }
  }

  dispose(): void {
    clearTimeout(this.posting);
    for (const turn of this.turns.values()) {
      turn.cancel();
    }
    this.answerApproval("dismissed");
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
  }

  private busySession(): string | undefined {
    const current = this.client.sessionId;
    if (current !== undefined && this.turns.has(current)) {
      return current;
    }
    return this.turns.keys().next().value;
  }

  private answer(id: string, state: ApprovalState): void {
    const open = this.approvals.get(id);
    if (open === undefined) {
      return;
    }
    this.approvals.delete(id);
    this.updateSession(open.sessionId, (t) => resolveApproval(t, id, state));
    open.resolve(state);
  }

  private receive(raw: unknown): void {
    const request = parseChatViewRequest(raw);
    switch (request?.type) {
      case "send":
        void this.send(request.text);
        break;
      case "stop": {
        const current = this.client.sessionId;
        if (current !== undefined) {
          this.turns.get(current)?.cancel();
        }
        break;
      }
      case "ready":
        this.post();
        break;
      case "approve":
        this.answer(request.id, request.decision);
        break;
      case "diff":
        void this.showDiff(request.id);
        break;
      case "pin":
        void this.pinResult(request.id);
        break;
      case "copy":
        void vscode.env.clipboard.writeText(request.text).then(() => vscode.window.setStatusBarMessage("Copied", 2000));
        break;
      default:
        break;
    }
  }

  private async pinResult(toolUseId: string): Promise<void> {
    const sessionId = this.client.sessionId;
    const tool = (sessionId === undefined ? [] : (this.transcripts.get(sessionId)?.entries ?? [])).find(
      (entry) => entry.kind === "tool" && entry.id === toolUseId,
    );
    const label = tool?.kind === "tool" ? [tool.name, tool.summary].filter((part) => part !== "").join(" ") : toolUseId;
    await setPinned(this.client, { toolUseId }, true, label);
  }

  private async showDiff(id: string): Promise<void> {
    const entry = [...this.transcripts.values()]
      .flatMap((t) => t.entries)
      .find((e) => e.kind === "approval" && e.id === id);
    if (entry?.kind !== "approval") {
      return;
    }
    try {
      if (!(await this.changes.show(entry.tool, entry.input))) {
        void vscode.window.showInformationMessage("Compact: this request changes no file, so there is no diff to show.");
      }
    } catch (error) {
      void vscode.window.showErrorMessage(`Compact: could not show the diff: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async send(text: string): Promise<void> {
    let sessionId = this.client.sessionId;
    if (sessionId !== undefined && this.turns.has(sessionId)) {
      return;
    }
    const turn = new vscode.CancellationTokenSource();
    try {
      if (sessionId === undefined) {
        const title = chatTitle(text);
        const created = await this.client.request<{ sessionId: string }>(Methods.newSession, { title, source: "chat" });
        sessionId = created.sessionId;
        this.transcripts.set(sessionId, EMPTY_TRANSCRIPT);
        this.titles.set(sessionId, title);
        await this.client.selectSession(sessionId);
        this.client.sessionsChanged();
      }
    } catch (error) {
      turn.dispose();
      void vscode.window.showErrorMessage(`Compact: could not start a chat: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const id = sessionId;
    if (!this.transcripts.has(id)) {
      await this.showCurrent(); // the earlier messages first
    }
    this.turns.set(id, turn);
    this.updateSession(id, (t) => startTurn(t, text));
    try {
      const result = await this.client.request<ChatResult>(Methods.chat, { sessionId: id, text }, turn.token);
      this.updateSession(id, (t) => endTurn(t, result));
      if (result.stopReason === "error" && /api key/i.test(result.error ?? "")) {
        void offerApiKey(result.error ?? "");
      }
    } catch (error) {
      const stopped = turn.token.isCancellationRequested;
      const message = stopped ? "Stopped." : error instanceof Error ? error.message : String(error);
      if (!stopped) {
        this.log.error(`compact/chat failed: ${message}`);
      }
      this.updateSession(id, (t) => endTurn(t, undefined, message));
    } finally {
      turn.dispose();
      this.turns.delete(id);
      for (const [approvalId, open] of this.approvals) {
        if (open.sessionId === id) {
          this.answer(approvalId, "dismissed");
        }
      }
      this.client.sessionsChanged();
    }
  }

  private compacted(event: DidCompactParams): void {
    if (!this.transcripts.has(event.sessionId)) {
      return; // loaded later from the server, markers included
    }
    const facts = event as DidCompactParams & { summarizer?: string; fallback?: boolean; fallbackReason?: string; cleared?: number };
    this.updateSession(event.sessionId, (t) =>
      addMarker(t, {
        kind: "marker",
        compaction: event.kind,
        trigger: event.trigger,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        summarizer: facts.summarizer,
        fallback: facts.fallback,
        fallbackReason: facts.fallbackReason,
        cleared: facts.cleared,
      }),
    );
  }

  private updateSession(sessionId: string, change: (transcript: ChatTranscript) => ChatTranscript): void {
    const before = this.transcripts.get(sessionId);
    if (before === undefined && !this.turns.has(sessionId)) {
      return; // not shown yet: it is read from the server when it is
    }
    this.transcripts.set(sessionId, change(before ?? EMPTY_TRANSCRIPT));
    if (sessionId === this.client.sessionId) {
      this.schedulePost();
    }
  }

  /** Shows the current session, reading its transcript from the server the first time. */
  private async showCurrent(): Promise<void> {
    const sessionId = this.client.sessionId;
    this.post();
    if (sessionId === undefined || this.transcripts.has(sessionId) || this.view === undefined) {
      return;
    }
    try {
      const transcript = await this.load(sessionId);
      if (!this.transcripts.has(sessionId)) {
        this.transcripts.set(sessionId, transcript);
      }
    } catch (error) {
      this.log.warn(`Reading the chat of ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.post();
  }

  private async load(sessionId: string): Promise<ChatTranscript> {
    try {
      const answer = await this.client.request<{ entries?: unknown[]; title?: string }>(Methods.transcript, { sessionId });
      if (typeof answer.title === "string") {
        this.titles.set(sessionId, answer.title);
      }
      return transcriptFromRecords(answer.entries ?? []);
    } catch (error) {
      if (!isMethodNotFound(error)) {
        throw error;
      }
      const view = await this.client.request<MessagesView>(Methods.messages, { sessionId });
      return transcriptFromMessages(view.messages);
    }
  }

  /** Coalesces bursts (streamed text) into one redraw per frame or so. */
  private schedulePost(): void {
    if (this.posting === undefined) {
      this.posting = setTimeout(() => {
        this.posting = undefined;
        this.post();
      }, 30);
    }
  }

  private post(): void {
    const view = this.view;
    if (view === undefined) {
      return;
    }
    const sessionId = this.client.sessionId;
    const transcript = sessionId === undefined ? EMPTY_TRANSCRIPT : (this.transcripts.get(sessionId) ?? EMPTY_TRANSCRIPT);
    const title = sessionId === undefined ? "New chat" : (this.titles.get(sessionId) ?? "");
    view.description = title;
    void view.webview.postMessage(transcriptMessage(transcript, title));
  }
}

async function offerApiKey(message: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(`Compact: ${message}`, "Set API Key");
  if (choice === "Set API Key") {
    await vscode.commands.executeCommand("compact.setApiKey");
  }
}

function chatTitle(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}
