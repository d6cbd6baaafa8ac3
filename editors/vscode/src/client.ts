// The connection to the compact-lsp server: starts it, keeps per-session usage from its notifications, and offers
// typed requests to the commands and views.
import * as vscode from "vscode";
import type { LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import type { ExecuteCommandParams } from "./model/commandModel";
import { didChangeConfigurationParams, serverEnvironment } from "./model/serverSettings";
import type { ServerState } from "./model/statusBarState";
import { mostRecentSession } from "./model/sessions";
import type { ChatEvent, DidChangeUsageParams, DidCompactParams, SessionInfo, Usage } from "./protocol";
import { Methods } from "./protocol";
import { API_KEY_SECRET, currentServerLaunch, currentServerSettings } from "./settings";

const NO_CANCELLATION = new vscode.CancellationTokenSource().token;

export class ServerNotRunningError extends Error {
  constructor() {
    super("The Compact server is not running. See “Compact: Show Server Log”, then “Compact: Restart Server”.");
  }
}

export class CompactClient implements vscode.Disposable {
  /** The running language client; undefined while stopped. */
  private client: LanguageClient | undefined;
  /** Latest usage per session, from compact/didChangeUsage. */
  private readonly usageBySession = new Map<string, Usage>();
  /** The session whose usage changed last: the status bar follows it, commands act on it. */
  private activeSession: string | undefined;
  private serverState: ServerState = "stopped";

  private readonly usageEmitter = new vscode.EventEmitter<DidChangeUsageParams>();
  private readonly compactEmitter = new vscode.EventEmitter<DidCompactParams>();
  private readonly chatEmitter = new vscode.EventEmitter<ChatEvent>();
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();

  readonly onDidChangeUsage = this.usageEmitter.event;
  readonly onDidCompact = this.compactEmitter.event;
  readonly onChatEvent = this.chatEmitter.event;
  readonly onDidChangeState = this.stateEmitter.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get state(): ServerState {
    return this.serverState;
  }

  get sessionId(): string | undefined {
    return this.activeSession;
  }

  get usage(): Usage | undefined {
    return this.activeSession === undefined ? undefined : this.usageBySession.get(this.activeSession);
  }

  async start(): Promise<void> {
    if (this.client !== undefined) {
      return;
    }
    this.setState("starting");
    let launch;
    try {
      launch = currentServerLaunch();
    } catch (error) {
      this.setState("stopped");
      throw error;
    }
    this.log.info(`Starting the server (${launch.source}): ${[launch.command, ...launch.args, "--stdio"].join(" ")}`);
    const apiKey = await this.secrets.get(API_KEY_SECRET);
    const executable = {
      command: launch.command,
      args: launch.args,
      transport: TransportKind.stdio,
      options: { env: serverEnvironment(process.env, apiKey) },
    } as const;
    const serverOptions: ServerOptions = { run: executable, debug: executable };
    const problems: string[] = [];
    const clientOptions: LanguageClientOptions = {
      // Every file document: open editors join the read-file state (open, dirty, focus order).
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      initializationOptions: currentServerSettings(problems),
      outputChannel: this.log,
      traceOutputChannel: this.log,
    };
    for (const problem of problems) {
      this.log.warn(problem);
    }
    const client = new LanguageClient("compactLsp", "Compact", serverOptions, clientOptions);
    client.onNotification(Methods.didChangeUsage, (params: DidChangeUsageParams) => this.handleUsage(params));
    client.onNotification(Methods.didCompact, (params: DidCompactParams) => this.compactEmitter.fire(params));
    client.onNotification(Methods.chatEvent, (params: ChatEvent) => this.chatEmitter.fire(params));
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
      this.setState("stopped");
      throw error;
    }
    await this.followMostRecentSession();
  }

  /** After a (re)start nothing is active: follow the session updated last, so the gauge and commands have one. */
  private async followMostRecentSession(): Promise<void> {
    if (this.activeSession !== undefined) {
      return;
    }
    try {
      const sessions = await this.request<SessionInfo[]>(Methods.sessions, {});
      const recent = mostRecentSession(sessions);
      if (recent !== undefined && this.activeSession === undefined) {
        this.handleUsage({ sessionId: recent.sessionId, usage: recent.usage });
      }
    } catch (error) {
      this.log.warn(`Listing sessions: ${error instanceof Error ? error.message : String(error)}`);
    }
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

  /** Sends the current settings; the server applies them in place (sessions and read-file state survive). */
  async pushSettings(): Promise<void> {
    if (this.client === undefined || !this.client.isRunning()) {
      return;
    }
    const problems: string[] = [];
    const settings = currentServerSettings(problems);
    for (const problem of problems) {
      this.log.warn(problem);
      void vscode.window.showWarningMessage(`Compact: ${problem}`);
    }
    await this.client.sendNotification(DidChangeConfigurationNotification.type, didChangeConfigurationParams(settings));
  }

  // Always pass a token: vscode-jsonrpc counts a trailing `undefined` as a second parameter and would send the
  // params as an array.
  async executeCommand<T>(params: ExecuteCommandParams, token?: vscode.CancellationToken): Promise<T> {
    return (await this.running().sendRequest(ExecuteCommandRequest.type, params, token ?? NO_CANCELLATION)) as T;
  }

  async request<T>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<T> {
    return this.running().sendRequest<T>(method, params, token ?? NO_CANCELLATION);
  }

  /** Makes a session the active one (e.g. the chat's) before the server has reported its usage. */
  focusSession(sessionId: string): void {
    this.activeSession = sessionId;
  }

  dispose(): void {
    void this.stop();
    this.usageEmitter.dispose();
    this.compactEmitter.dispose();
    this.chatEmitter.dispose();
    this.stateEmitter.dispose();
  }

  private running(): LanguageClient {
    if (this.client === undefined || !this.client.isRunning()) {
      throw new ServerNotRunningError();
    }
    return this.client;
  }

  private handleUsage(params: DidChangeUsageParams): void {
    this.usageBySession.set(params.sessionId, params.usage);
    this.activeSession = params.sessionId;
    this.usageEmitter.fire(params);
  }

  private setState(state: ServerState): void {
    if (state !== this.serverState) {
      this.serverState = state;
      this.stateEmitter.fire(state);
    }
  }
}
