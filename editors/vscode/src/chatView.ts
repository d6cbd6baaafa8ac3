// The chat, a webview view in the Compact side bar: compact/chat requests out, compact/chatEvent notifications in,
// drawn by model/chatPage.ts. It shows the current session (the sessions tree switches it) and restores it from
// the server after a reload. Permission prompts of a running turn are answered inline.
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import { isMethodNotFound } from "./client";
import type { ApprovalState, ChatTranscript } from "./model/chatModel";
import { approvalDiff } from "./model/approvalDiff";
import {
  EMPTY_TRANSCRIPT,
  addMarker,
  attachDiff,
  applyChatEvent,
  endTurn,
  requestApproval,
  resolveApproval,
  startTurn,
} from "./model/chatModel";
import { parseChatViewRequest, renderChatShell, restrictedMessage, transcriptMessage } from "./model/chatPage";
import { transcriptFromMessages, transcriptFromRecords } from "./model/chatRestore";
import { failureOutcome } from "./model/commandModel";
import { linkTarget } from "./model/fileLinks";
import { nonce } from "./model/html";
import { mentionedPaths, withAttachments } from "./model/mentions";
import { notify } from "./notify";
import { setPinned } from "./pins";
import type { ProposedChanges } from "./proposedChanges";
import { readText, resolveWorkspacePath } from "./proposedChanges";
import type { ChatResult, DidCompactParams, ImportSessionResult, MessagesView } from "./protocol";
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
  /** A compaction (or other server task) in progress, as the chat shows it. */
  private activity: string | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: CompactClient,
    private readonly changes: ProposedChanges,
    private readonly log: vscode.LogOutputChannel,
  ) {
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
    void this.addDiff(sessionId, id);
    return new Promise((resolve) => {
      this.approvals.set(id, { sessionId, resolve });
    });
  }

  /** The proposed change as a unified diff in the prompt, from the file as it is on disk now. */
  private async addDiff(sessionId: string, id: string): Promise<void> {
    const entry = this.transcripts.get(sessionId)?.entries.find((e) => e.kind === "approval" && e.id === id);
    if (entry?.kind !== "approval") {
      return;
    }
    const filePath = (entry.input as { file_path?: unknown } | undefined)?.file_path;
    const uri = typeof filePath === "string" && filePath !== "" ? resolveWorkspacePath(filePath) : undefined;
    if (uri === undefined) {
      return;
    }
    const diff = approvalDiff(entry.tool, entry.input, await readText(uri));
    if (diff !== undefined) {
      this.updateSession(sessionId, (t) => attachDiff(t, id, diff));
    }
  }

  /** Puts the keyboard focus in the chat's input (Compact: Focus Chat Input). */
  async focusInput(): Promise<void> {
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
    for (const id of this.approvals.keys()) {
      this.answer(id, state);
    }
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
    void this.changes.close(id); // the proposal's diff tab has done its work
    open.resolve(state);
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
        void this.openLink(request.href);
        break;
      case "summary":
        void this.openSummary(request.index);
        break;
      case "import":
        void this.importToContinue();
        break;
      case "mention":
        void this.suggestFiles(request.query);
        break;
      case "command":
        void vscode.commands.executeCommand(request.command);
        break;
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
      if (!(await this.changes.show(entry.tool, entry.input, id))) {
        void vscode.window.showInformationMessage("Compact: this request changes no file, so there is no diff to show.");
      }
    } catch (error) {
      notify(failureOutcome("Show diff", error));
    }
  }

  /** A link in an answer: a workspace file opens at its line; a web page opens in the browser (VS Code asks). */
  private async openLink(href: string): Promise<void> {
    const target = linkTarget(href);
    if (target === undefined) {
      return;
    }
    if (target.kind === "external") {
      await vscode.env.openExternal(vscode.Uri.parse(target.url));
      return;
    }
    const uri = resolveWorkspacePath(target.path);
    if (uri === undefined || !(await isFile(uri))) {
      notify({ severity: "info", text: `There is no file ${target.path} in this workspace.` });
      return;
    }
    const options: vscode.TextDocumentShowOptions = { preview: true };
    if (target.line !== undefined) {
      const start = new vscode.Position(target.line - 1, (target.column ?? 1) - 1);
      const end = target.endLine !== undefined ? new vscode.Position(target.endLine - 1, Number.MAX_SAFE_INTEGER) : start;
      options.selection = new vscode.Range(start, end);
    }
    await vscode.window.showTextDocument(uri, options);
  }

  /** A compaction marker: the summary the model read instead, as a Markdown preview. */
  private async openSummary(index: number): Promise<void> {
    const sessionId = this.client.sessionId;
    if (sessionId === undefined) {
      return;
    }
    try {
      const answer = await this.client.request<{ entries?: unknown[] }>(Methods.transcript, { sessionId });
      const boundaries = (answer.entries ?? []).filter(
        (entry): entry is { kind: "compaction"; summary?: string | null } =>
          typeof entry === "object" && entry !== null && (entry as { kind?: unknown }).kind === "compaction",
      );
      const summary = boundaries[index]?.summary;
      if (typeof summary !== "string" || summary === "") {
        notify({ severity: "info", text: "This compaction's summary is not stored with the session." });
        return;
      }
      const document = await vscode.workspace.openTextDocument({
        language: "markdown",
        content: `# Summary of the conversation before this compaction\n\nWhat the model read instead of the earlier messages.\n\n${summary}\n`,
      });
      await vscode.window.showTextDocument(document, { preview: true });
    } catch (error) {
      notify(failureOutcome("Opening the summary", error));
    }
  }

  /** "Import to continue": a managed copy of the read-only session (made once), opened in the chat. */
  private async importToContinue(): Promise<void> {
    const sessionId = this.client.sessionId;
    if (sessionId === undefined || !this.client.isReadOnly(sessionId)) {
      return;
    }
    try {
      const copy = await this.client.request<ImportSessionResult>(Methods.importSession, { sessionId });
      this.titles.set(copy.sessionId, copy.title);
      this.transcripts.delete(copy.sessionId); // read it afresh: it may have been continued before
      await this.client.selectSession(copy.sessionId);
      this.client.sessionsChanged();
      await this.showCurrent();
      void this.view?.webview.postMessage({ type: "focus" });
    } catch (error) {
      notify(failureOutcome("Import to continue", error));
    }
  }

  /** Files whose path holds what follows the `@`, for the input's suggestion list (at most 8, workspace-relative). */
  private async suggestFiles(query: string): Promise<void> {
    const safe = query.replace(/[^\w./~-]/g, "");
    const found = await vscode.workspace.findFiles(`**/*${safe}*`, "**/{node_modules,.git,.venv,__pycache__}/**", 8);
    const items = found.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort((a, b) => a.length - b.length);
    void this.view?.webview.postMessage({ type: "mentions", query, items });
  }

  /** `@path` mentions of existing files: read through the server (its roots and limits), attached to the message. */
  private async attachMentions(sessionId: string, text: string): Promise<string> {
    const files: { path: string; content: string }[] = [];
    for (const mention of mentionedPaths(text)) {
      const uri = resolveWorkspacePath(mention);
      if (uri === undefined || !(await isFile(uri))) {
        continue; // not a file: an @ that is just text
      }
      try {
        const read = await this.client.request<{ path: string; content: string }>(Methods.readFile, { sessionId, path: mention });
        files.push({ path: mention, content: read.content });
      } catch (error) {
        notify(failureOutcome(`Attaching ${mention}`, error)); // outside the roots, binary, too big: said once
      }
    }
    return withAttachments(text, files);
  }

  private async send(text: string): Promise<void> {
    let sessionId = this.client.sessionId;
    if (sessionId !== undefined && (this.turns.has(sessionId) || this.client.isReadOnly(sessionId))) {
      return; // a turn runs, or the session is Claude Code's (the chat offers Import to continue instead)
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
      const message = await this.attachMentions(id, text);
      if (message !== text) {
        this.replaceLastUserText(id, message);
      }
      const result = await this.client.request<ChatResult>(Methods.chat, { sessionId: id, text: message }, turn.token);
      this.updateSession(id, (t) => offerApiKeyIn(endTurn(t, result)));
    } catch (error) {
      const stopped = turn.token.isCancellationRequested;
      const message = stopped ? "Stopped." : failureOutcome("The agent's turn", error).text;
      if (!stopped) {
        this.log.error(`compact/chat failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.updateSession(id, (t) => offerApiKeyIn(endTurn(t, undefined, message)));
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

  /** The user's last message as sent (with its attached files), so the chat shows the chips. */
  private replaceLastUserText(sessionId: string, text: string): void {
    this.updateSession(sessionId, (t) => {
      const index = t.entries.findLastIndex((entry) => entry.kind === "user");
      return index < 0 ? t : { ...t, entries: t.entries.map((entry, i) => (i === index ? { kind: "user", text } : entry)) };
    });
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
    const sessionId = this.client.sessionId;
    void vscode.commands.executeCommand("setContext", "compactLsp.chatBusy", sessionId !== undefined && this.turns.has(sessionId));
    const transcript = sessionId === undefined ? EMPTY_TRANSCRIPT : (this.transcripts.get(sessionId) ?? EMPTY_TRANSCRIPT);
    const title = sessionId === undefined ? "New chat" : (this.titles.get(sessionId) ?? "");
    const owner = this.client.readOnlyOwner(sessionId);
    view.description = owner !== undefined ? `${title} (read-only)` : title;
    void view.webview.postMessage(transcriptMessage(transcript, title, owner, this.activity));
  }
}

async function isFile(uri: vscode.Uri): Promise<boolean> {
  try {
    return (await vscode.workspace.fs.stat(uri)).type === vscode.FileType.File;
  } catch {
    return false;
  }
}

/** A turn that failed for want of an API key: the chat's error (shown once, there) carries the Set API Key button. */
function offerApiKeyIn(transcript: ChatTranscript): ChatTranscript {
  const entries = transcript.entries.map((entry) =>
    entry.kind === "error" && /api key/i.test(entry.text) ? { ...entry, action: "compact.setApiKey" as const } : entry,
  );
  return { ...transcript, entries };
}

function chatTitle(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}
