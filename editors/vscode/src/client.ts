// The connection to the compact-lsp server: starts it (the language client itself is built in languageClient.ts),
// follows the current session (the gauge, the commands and the chat act on it), keeps per-session usage from its
// notifications, and offers typed requests. Who writes each session is sessionOwners.ts (client.owners).
import * as vscode from "vscode";
import type { LanguageClient, ShowMessageRequestParams } from "vscode-languageclient/node";
import { DidChangeConfigurationNotification, ExecuteCommandRequest, ShowMessageRequest, State } from "vscode-languageclient/node";
import type { ExecuteCommandParams } from "./model/commandModel";
import type { ServerLaunch } from "./model/serverSettings";
import { didChangeConfigurationParams } from "./model/serverSettings";
import type { ServerState } from "./model/statusBarState";
import { mostRecentSession } from "./model/sessions";
import { bundledServer } from "./bundledServer";
import { newLanguageClient, warnOnVersionMismatch } from "./languageClient";
import type { ProgressActivity } from "./progress";
import { registerWorkDoneProgress } from "./progress";
import type { ChatEvent, DidChangeOpenElsewhereParams, DidChangeUsageParams, DidCompactParams, SessionInfo, Status, Usage } from "./protocol";
import { Methods } from "./protocol";
import { API_KEY_SECRET, currentServerLaunch, currentServerSettings } from "./settings";
import type { StartFailure } from "./serverStart";
import { isMethodNotFound, launchFailure, RestrictedModeError, ServerNotRunningError, StderrTail } from "./serverStart";
import { SessionOwners } from "./sessionOwners";

const NO_CANCELLATION = new vscode.CancellationTokenSource().token;

export type MessageRequestHandler = (params: ShowMessageRequestParams) => Promise<{ title: string } | null>;

export class CompactClient implements vscode.Disposable {
  /** The running language client; undefined while stopped. */
  private client: LanguageClient | undefined;
  /** Latest usage per session, from compact/didChangeUsage and compact/sessions. */
  private readonly usageBySession = new Map<string, Usage>();
  /** The current session: the gauge shows it, commands act on it, the chat shows it. */
  private current: string | undefined;
  private serverState: ServerState = "stopped";
  /** A session was chosen in this window (or "new chat"): usage elsewhere no longer moves the gauge. */
  private chosen = false;
  /** The current session was looked up after the start: before that, no notification may choose one. */
  private started = false;
  /** Why the last start failed (undefined once one succeeds): the chat shows it instead of an input nothing answers. */
  private failedStart: StartFailure | undefined;
  /** The server process's stderr during this start. */
  private stderr = new StderrTail();
  /** The language client that gave up on its server (said once). */
  private gaveUpOn: LanguageClient | undefined;
  /** The start in progress, if any: ready() waits for it. */
  private startup: Promise<void> | undefined;
  /** Answers window/showMessageRequest (the chat shows permission prompts inline). */
  private messageRequestHandler: MessageRequestHandler | undefined;

  private readonly usageEmitter = new vscode.EventEmitter<DidChangeUsageParams>();
  private readonly compactEmitter = new vscode.EventEmitter<DidCompactParams>();
  private readonly chatEmitter = new vscode.EventEmitter<ChatEvent>();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly currentEmitter = new vscode.EventEmitter<string | undefined>();
  private readonly sessionsEmitter = new vscode.EventEmitter<void>();
  private readonly progressEmitter = new vscode.EventEmitter<ProgressActivity>();
  private readonly restartFailedEmitter = new vscode.EventEmitter<StartFailure>();

  readonly onDidChangeUsage = this.usageEmitter.event;
  readonly onDidCompact = this.compactEmitter.event;
  readonly onChatEvent = this.chatEmitter.event;
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onDidChangeCurrentSession = this.currentEmitter.event;
  /** A session was created, renamed, imported or updated: lists should refresh. */
  readonly onDidChangeSessions = this.sessionsEmitter.event;
  /** A server task with progress (a compaction) began, moved on or ended (undefined). */
  readonly onProgress = this.progressEmitter.event;
  /** Who writes each session (an agent, another window), as listed and said since. */
  readonly owners = new SessionOwners();
  /** The server crashed and did not start again (the language client gave up): why. */
  readonly onDidFailRestart = this.restartFailedEmitter.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get state(): ServerState {
    return this.serverState;
  }

  get startFailure(): StartFailure | undefined {
    return this.serverState === "stopped" ? this.failedStart : undefined;
  }

  get sessionId(): string | undefined {
    return this.current;
  }

  get usage(): Usage | undefined {
    return this.current === undefined ? undefined : this.usageBySession.get(this.current);
  }

  usageOf(sessionId: string): Usage | undefined {
    return this.usageBySession.get(sessionId);
  }

  setMessageRequestHandler(handler: MessageRequestHandler): void {
    this.messageRequestHandler = handler;
  }

  /**
   * Starts the server (once: a second call while it starts waits for the same start). Resolves once the current
   * session is followed.
   */
  start(): Promise<void> {
    this.startup ??= this.launch().finally(() => {
      this.startup = undefined;
    });
    return this.startup;
  }

  /**
   * Waits while the server starts (just after the folder was trusted, on a restart), so that what the user sends
   * then reaches it instead of being refused as "not running". Never throws: a failed start was said already.
   */
  async ready(): Promise<void> {
    await this.startup?.catch(() => undefined);
  }

  private async launch(): Promise<void> {
    if (this.client !== undefined) {
      return;
    }
    if (!vscode.workspace.isTrusted) {
      throw new RestrictedModeError(); // Restart Server or Set API Key in an untrusted folder: still paused
    }
    this.started = false;
    this.failedStart = undefined;
    this.stderr = new StderrTail();
    this.setState("starting");
    let launch;
    try {
      launch = currentServerLaunch(await bundledServer());
    } catch (error) {
      const setting = (error as { setting?: unknown }).setting;
      this.failedStart = { reason: error instanceof Error ? error.message : String(error), setting: typeof setting === "string" ? setting : undefined };
      this.setState("stopped", true); // said even when the process already stopped
      throw error;
    }
    this.log.info(`Starting the server (${launch.source}): ${[launch.command, ...launch.args, "--stdio"].join(" ")}`);
    const client = newLanguageClient(launch, await this.secrets.get(API_KEY_SECRET), this.log, () => this.client, this.stderr.onStderr, (error) => {
      void this.gaveUp(client, launch, error);
    });
    client.onNotification(Methods.didChangeUsage, (params: DidChangeUsageParams) => this.handleUsage(params));
    client.onNotification(Methods.didCompact, (params: DidCompactParams) => this.compactEmitter.fire(params));
    client.onNotification(Methods.chatEvent, (params: ChatEvent) => this.chatEmitter.fire(params));
    client.onNotification(Methods.didChangeOpenElsewhere, (params: DidChangeOpenElsewhereParams) =>
      this.owners.setOpenElsewhere(params.sessionId, params.openElsewhere !== undefined),
    );
    client.onRequest(ShowMessageRequest.type, async (params) => {
      if (this.messageRequestHandler !== undefined) {
        return this.messageRequestHandler(params);
      }
      return (await vscode.window.showWarningMessage(params.message, ...(params.actions ?? []))) ?? null;
    });
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        this.setState("running");
      } else if (event.newState === State.Stopped) {
        this.setState("stopped");
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      // the process's own last words ("ModuleNotFoundError: No module named 'pygls'") over the client's ("write EPIPE")
      this.failedStart = launchFailure(launch, await this.stderr.lastWords(), error);
      this.setState("stopped", true); // said even when the process already stopped
      throw new ServerNotRunningError(this.failedStart);
    }
    warnOnVersionMismatch(client, this.log);
    // After start: replaces the language client's own handler, which shows progress only in the status bar.
    registerWorkDoneProgress(client, this.log, (activity) => this.progressEmitter.fire(activity));
    await this.followCurrentSession();
  }

  /**
   * The server crashed and the language client could not start it again: said as a failed start (the chat, the
   * Sessions view and one toast), with the process's last words.
   */
  private async gaveUp(client: LanguageClient, launch: ServerLaunch, error: unknown): Promise<void> {
    if (this.client !== client || this.gaveUpOn === client) {
      return; // stopped or replaced meanwhile, or said already (the client gives up in two words at once)
    }
    this.gaveUpOn = client;
    this.failedStart = launchFailure(launch, await this.stderr.lastWords(), error);
    this.setState("stopped", true);
    this.restartFailedEmitter.fire(this.failedStart);
  }

  /**
   * After a (re)start: the session this window shows, else the server's current session (the one the user chose
   * last in this workspace), else a new chat. Never a session only because it changed lately: Claude Code's
   * followed sessions are written to all the time, yet they are the user's only when the user opens one.
   */
  private async followCurrentSession(): Promise<void> {
    try {
      const sessions = await this.listSessions();
      let sessionId = this.chosen ? this.current : undefined;
      if (sessionId === undefined) {
        try {
          const answer = await this.request<{ sessionId?: string | null } | null>(Methods.currentSession, {});
          sessionId = answer?.sessionId ?? undefined;
        } catch (error) {
          if (!isMethodNotFound(error)) {
            throw error;
          }
          sessionId = mostRecentSession(sessions.filter((session) => session.readOnly !== true))?.sessionId;
        }
      }
      this.started = true;
      if (sessionId !== undefined && sessions.some((session) => session.sessionId === sessionId)) {
        await this.selectSession(sessionId);
      } else if (this.current !== undefined) {
        this.current = undefined;
        this.currentEmitter.fire(undefined);
      }
    } catch (error) {
      this.started = true;
      this.log.warn(`Finding the current session: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** compact/sessions; remembers each session's usage and who writes it. */
  async listSessions(): Promise<SessionInfo[]> {
    const sessions = await this.request<SessionInfo[]>(Methods.sessions, {});
    this.owners.listed(sessions);
    for (const session of sessions) {
      if (session.usage !== undefined && !this.usageBySession.has(session.sessionId)) {
        this.usageBySession.set(session.sessionId, session.usage);
      }
    }
    return sessions;
  }

  /**
   * Makes a session the current one here and on the server (compact/selectSession), so commands without a
   * sessionId act on it too. `undefined`: a new chat that has no session yet.
   */
  async selectSession(sessionId: string | undefined): Promise<void> {
    const changed = sessionId !== this.current;
    this.current = sessionId;
    this.chosen = true;
    if (sessionId !== undefined) {
      try {
        await this.request(Methods.selectSession, { sessionId });
      } catch (error) {
        if (!isMethodNotFound(error)) {
          this.log.warn(`Selecting session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (!this.usageBySession.has(sessionId)) {
        await this.refreshUsage();
      }
    }
    if (changed) {
      this.currentEmitter.fire(sessionId);
    }
  }

  /** Asks the server for the current session's usage (after a settings change, say) and shows it. */
  async refreshUsage(): Promise<void> {
    const sessionId = this.current;
    if (sessionId === undefined) {
      return;
    }
    try {
      const status = await this.request<Status>(Methods.status, { sessionId });
      this.handleUsage({ sessionId, usage: status.usage });
    } catch (error) {
      this.log.warn(`Refreshing the usage of ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  sessionsChanged(): void {
    this.sessionsEmitter.fire();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.stop();
      } catch (error) {
        this.log.warn(`Stopping the server: ${String(error)}`);
      }
    }
    this.setState("stopped");
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Sends the current settings; the server applies them in place (sessions and read-file state survive), then
   * the gauge is redrawn from the server's usage under the new settings (window, thresholds).
   */
  async pushSettings(): Promise<void> {
    if (this.client === undefined || !this.client.isRunning()) {
      return;
    }
    const problems: string[] = [];
    const settings = currentServerSettings(problems, "null"); // the whole of it: a reset setting goes as null
    for (const problem of problems) {
      this.log.warn(problem);
      void vscode.window.showWarningMessage(`Compact: ${problem}`);
    }
    await this.client.sendNotification(DidChangeConfigurationNotification.type, didChangeConfigurationParams(settings));
    this.usageBySession.clear();
    await this.refreshUsage();
  }

  // Always pass a token: vscode-jsonrpc counts a trailing `undefined` as a second parameter and would send the
  // params as an array.
  async executeCommand<T>(params: ExecuteCommandParams, token?: vscode.CancellationToken): Promise<T> {
    return (await this.running().sendRequest(ExecuteCommandRequest.type, params, token ?? NO_CANCELLATION)) as T;
  }

  async request<T>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<T> {
    return this.running().sendRequest<T>(method, params, token ?? NO_CANCELLATION);
  }

  dispose(): void {
    void this.stop();
    this.usageEmitter.dispose();
    this.compactEmitter.dispose();
    this.chatEmitter.dispose();
    this.stateEmitter.dispose();
    this.currentEmitter.dispose();
    this.sessionsEmitter.dispose();
    this.progressEmitter.dispose();
    this.owners.dispose();
    this.restartFailedEmitter.dispose();
  }

  private running(): LanguageClient {
    if (!vscode.workspace.isTrusted) {
      throw new RestrictedModeError();
    }
    if (this.client === undefined || !this.client.isRunning()) {
      throw new ServerNotRunningError(this.startFailure);
    }
    return this.client;
  }

  private handleUsage(params: DidChangeUsageParams): void {
    const known = this.usageBySession.has(params.sessionId);
    this.usageBySession.set(params.sessionId, params.usage);
    if (this.current === undefined && !this.chosen && this.started && !known) {
      void this.adoptIfCurrent(params.sessionId);
    }
    this.usageEmitter.fire(params);
    if (!known) {
      this.sessionsEmitter.fire(); // a session this window had not seen (created by another client, imported)
    }
  }

  /**
   * Nothing is current yet and a session this window had not seen changed (one an agent made over the protocol):
   * show it only if the server says it is the current one (a followed Claude Code session never is by itself).
   */
  private async adoptIfCurrent(sessionId: string): Promise<void> {
    if (this.owners.isReadOnly(sessionId)) {
      return;
    }
    try {
      const answer = await this.request<{ sessionId?: string | null } | null>(Methods.currentSession, {});
      if (answer?.sessionId === sessionId && this.current === undefined && !this.chosen) {
        this.current = sessionId;
        this.chosen = true;
        this.currentEmitter.fire(sessionId);
      }
    } catch (error) {
      this.log.warn(`Finding the current session: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private setState(state: ServerState, failedStart = false): void {
    if (state !== this.serverState || failedStart) {
      this.serverState = state;
      this.stateEmitter.fire(state);
    }
  }
}
