// The chat, a webview view in the Compact side bar: compact/chat requests out, compact/chatEvent notifications in,
// drawn by model/chatPage.ts. It runs the turns, shows the current session (the sessions tree switches it; a new
// chat's first message creates one; "Import to continue" copies a read-only one) and dispatches what the webview
// asks. The transcripts it shows are chatTranscripts.ts; the inline permission prompts, chatApprovals.ts; the
// input's `@` mentions, chatMentions.ts; the links it opens, chatLinks.ts; a session another window writes,
// chatOwnership.ts.
import * as vscode from "vscode";
import { ChatApprovals } from "./chatApprovals";
import { ChatOwnership } from "./chatOwnership";
import { openLink, openSummary } from "./chatLinks";
import { attachMentions, chatTitle, suggestFiles } from "./chatMentions";
import { ChatTranscripts, compactionMarker, offerApiKeyIn, withLastUserText } from "./chatTranscripts";
import type { CompactClient } from "./client";
import type { ApprovalState, ChatTranscript } from "./model/chatModel";
import { addMarker, applyChatEvent, cancelTurn, endTurn, refuseTurn, startTurn } from "./model/chatModel";
import {
  openElsewhereMessage,
  parseChatViewRequest,
  renderChatShell,
  restrictedMessage,
  serverNotStartedMessage,
  transcriptMessage,
} from "./model/chatPage";
import { failureOutcome, keyProblem, writtenInAnotherWindow } from "./model/commandModel";
import { chatDescription } from "./model/sessions";
import { nonce } from "./model/html";
import { notify, openSetting } from "./notify";
import { setPinned } from "./pins";
import type { ProposedChanges } from "./proposedChanges";
import type { ChatResult, DidCompactParams, ImportSessionResult } from "./protocol";
import { Methods } from "./protocol";

export const CHAT_VIEW_ID = "compactLsp.chat";

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private focusWhenReady = false;
  private readonly transcripts: ChatTranscripts;
  /** Running turns by session id. */
  private readonly turns = new Map<string, vscode.CancellationTokenSource>();
  private readonly approvals: ChatApprovals;
  private readonly ownership: ChatOwnership;
  private readonly subscriptions: vscode.Disposable[];
  private posting: NodeJS.Timeout | undefined;
  /** A compaction (or other server task) in progress, as the chat shows it. */
  private activity: string | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: CompactClient,
    changes: ProposedChanges,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.transcripts = new ChatTranscripts(client, log);
    this.approvals = new ChatApprovals(this.transcripts, changes, (sessionId, change) => this.updateSession(sessionId, change));
    this.ownership = new ChatOwnership(client, this.transcripts, (sessionId) => this.turns.has(sessionId), () => this.post());
    this.subscriptions = [
      client.onChatEvent((event) => this.updateSession(event.sessionId, (t) => applyChatEvent(t, event))),
      client.onProgress((activity) => {
        this.activity = activity === undefined ? undefined : [activity.title, activity.message].filter(Boolean).join(": ") + "…";
        this.post();
      }),
      client.onDidCompact((event) => this.compacted(event)),
      client.onDidChangeCurrentSession(() => void this.showCurrent()),
      client.onDidChangeState((state) => {
        if (state === "running") {
          this.transcripts.clear(); // a restarted server: read the sessions afresh
          void this.showCurrent();
        } else {
          this.post(); // a start that failed says why, in place of the input
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
    return this.approvals.ask(sessionId, prompt);
  }

  /** Puts the keyboard focus in the chat's input (Compact: Focus Chat Input). */
  async focusInput(): Promise<void> {
    // a chat first opened by this command loads its script after the message below: it takes the focus when ready
    this.focusWhenReady = this.view === undefined;
    await this.show();
    void this.view?.webview.postMessage({ type: "focus" });
  }

  /** Sends what is typed (Compact: Send Message, from a keybinding). */
  submit(): void {
    void this.view?.webview.postMessage({ type: "submit" });
  }

  /** Stops the running turn of the current session (Compact: Stop, Escape in the chat). */
  stop(): void {
    const current = this.client.sessionId;
    if (current !== undefined) {
      this.turns.get(current)?.cancel();
    }
  }

  /** Answers an open prompt from elsewhere (the fallback toast); the chat shows the answer. */
  answerApproval(state: ApprovalState): void {
    this.approvals.answerAll(state);
  }

  /** A new chat: nothing current until the first message creates its session. */
  async newChat(): Promise<void> {
    await this.client.selectSession(undefined);
    await this.show();
  }

  /** Redraws (the workspace became trusted, say). */
  refresh(): void {
    this.post();
  }

  /** A session's title as the chat knows it ("" when it does not). */
  titleOf(sessionId: string): string {
    return this.transcripts.titleOf(sessionId);
  }

  rememberTitle(sessionId: string, title: string): void {
    this.transcripts.setTitle(sessionId, title);
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
    this.ownership.dispose();
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

  private receive(raw: unknown): void {
    const request = parseChatViewRequest(raw);
    switch (request?.type) {
      case "send":
        void this.send(request.text);
        break;
      case "stop":
        this.stop();
        break;
      case "open":
        void openLink(request.href);
        break;
      case "summary":
        this.openSummary(request.index);
        break;
      case "import":
        void this.importToContinue();
        break;
      case "mention":
        void this.suggestFiles(request.query);
        break;
      case "command":
        if (request.command === "workbench.action.openSettings") {
          void openSetting(this.client.startFailure?.setting ?? "compactLsp.server");
        } else {
          void vscode.commands.executeCommand(request.command);
        }
        break;
      case "ready":
        this.post();
        if (this.focusWhenReady) {
          void this.view?.webview.postMessage({ type: "focus" });
        }
        this.focusWhenReady = false;
        break;
      case "approve":
        this.approvals.answer(request.id, request.decision);
        break;
      case "diff":
        void this.approvals.showDiff(request.id);
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
    const tool = (sessionId === undefined ? [] : this.transcripts.of(sessionId).entries).find(
      (entry) => entry.kind === "tool" && entry.id === toolUseId,
    );
    const label = tool?.kind === "tool" ? [tool.name, tool.summary].filter((part) => part !== "").join(" ") : toolUseId;
    await setPinned(this.client, { toolUseId }, true, label);
  }

  /** A compaction marker: the summary the model read instead, as a Markdown preview. */
  private openSummary(index: number): void {
    const sessionId = this.client.sessionId;
    if (sessionId !== undefined) {
      void openSummary(sessionId, index);
    }
  }

  /** "Import to continue": a managed copy of the read-only session (made once), opened in the chat. */
  private async importToContinue(): Promise<void> {
    const sessionId = this.client.sessionId;
    if (sessionId === undefined || !this.client.owners.isReadOnly(sessionId)) {
      return;
    }
    try {
      const copy = await this.client.request<ImportSessionResult>(Methods.importSession, { sessionId });
      this.transcripts.setTitle(copy.sessionId, copy.title);
      this.transcripts.forget(copy.sessionId); // read it afresh: it may have been continued before
      await this.client.selectSession(copy.sessionId);
      await this.client.listSessions(); // the copy's importedFrom, for the chat's header
      this.client.sessionsChanged();
      await this.showCurrent();
      void this.view?.webview.postMessage({ type: "focus" });
    } catch (error) {
      notify(failureOutcome("Import to continue", error));
    }
  }

  /** The input's suggestion list for what follows an `@`. */
  private async suggestFiles(query: string): Promise<void> {
    const items = await suggestFiles(query);
    void this.view?.webview.postMessage({ type: "mentions", query, items });
  }

  private async send(text: string): Promise<void> {
    await this.client.ready(); // sent as the server starts (the folder just trusted): wait for it, not "not running"
    let sessionId = this.client.sessionId;
    if (sessionId !== undefined && (this.turns.has(sessionId) || this.client.owners.isReadOnly(sessionId))) {
      return; // a turn runs, or the session is Claude Code's (the chat offers Import to continue instead)
    }
    const turn = new vscode.CancellationTokenSource();
    try {
      if (sessionId === undefined) {
        const title = chatTitle(text);
        const created = await this.client.request<{ sessionId: string }>(Methods.newSession, { title, source: "chat" });
        sessionId = created.sessionId;
        this.transcripts.startEmpty(sessionId, title);
        await this.client.selectSession(sessionId);
        this.client.sessionsChanged();
      }
    } catch (error) {
      turn.dispose();
      void this.view?.webview.postMessage({ type: "draft", text }); // back in the input: what was typed is not lost
      notify(failureOutcome("Starting a chat", error));
      return;
    }
    const id = sessionId;
    if (!this.transcripts.has(id)) {
      await this.showCurrent(); // the earlier messages first
    }
    this.turns.set(id, turn);
    this.updateSession(id, (t) => startTurn(t, text));
    try {
      const message = await attachMentions(this.client, id, text);
      if (message !== text) {
        this.updateSession(id, (t) => withLastUserText(t, message));
      }
      const result = await this.client.request<ChatResult>(Methods.chat, { sessionId: id, text: message }, turn.token);
      this.updateSession(id, (t) => offerApiKeyIn(endTurn(t, result)));
      if (result.stopReason === "error" && keyProblem(result.error)) {
        void this.view?.webview.postMessage({ type: "draft", text }); // ready to send again once a key is set
      }
    } catch (error) {
      if (turn.token.isCancellationRequested) {
        this.updateSession(id, cancelTurn);
      } else if (writtenInAnotherWindow(error)) {
        // refused before anything was sent: the message goes back into the input, and the chat says where to go on
        const notice = `${failureOutcome("The agent's turn", error).text} Your message is back in the input.`;
        this.updateSession(id, (t) => refuseTurn(t, notice));
        void this.view?.webview.postMessage({ type: "draft", text });
      } else {
        this.log.error(`compact/chat failed: ${error instanceof Error ? error.message : String(error)}`);
        const message = failureOutcome("The agent's turn", error).text;
        this.updateSession(id, (t) => offerApiKeyIn(endTurn(t, undefined, message)));
      }
    } finally {
      turn.dispose();
      this.turns.delete(id);
      this.approvals.dismissSession(id);
      this.client.sessionsChanged();
    }
  }

  private compacted(event: DidCompactParams): void {
    if (!this.transcripts.has(event.sessionId)) {
      return; // loaded later from the server, markers included
    }
    this.updateSession(event.sessionId, (t) => addMarker(t, compactionMarker(event)));
  }

  private updateSession(sessionId: string, change: (transcript: ChatTranscript) => ChatTranscript): void {
    if (this.transcripts.update(sessionId, this.turns.has(sessionId), change) && sessionId === this.client.sessionId) {
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
    await this.transcripts.restore(sessionId);
    this.post();
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
    if (!vscode.workspace.isTrusted) {
      view.description = "Restricted Mode";
      void view.webview.postMessage(restrictedMessage());
      return;
    }
    const failure = this.client.startFailure;
    if (failure !== undefined) {
      view.description = "Server not started";
      void view.webview.postMessage(serverNotStartedMessage(failure.reason.replace(/\.?$/, "."), failure.setting));
      return;
    }
    const sessionId = this.client.sessionId;
    void vscode.commands.executeCommand("setContext", "compactLsp.chatBusy", sessionId !== undefined && this.turns.has(sessionId));
    const transcript = this.transcripts.of(sessionId);
    const title = this.transcripts.titleOf(sessionId);
    const owner = this.client.owners.readOnlyOwner(sessionId);
    view.description = chatDescription(title, owner, this.client.owners.importedFrom(sessionId));
    if (this.ownership.shownReadOnly(sessionId)) {
      view.description = `${title} (read-only: open in another window)`;
      void view.webview.postMessage(openElsewhereMessage(transcript, this.activity));
      return;
    }
    void view.webview.postMessage(transcriptMessage(transcript, owner, this.activity));
  }
}
