// Activation only: build the pieces, wire them together, start the server. Each piece lives in its own module.
import * as vscode from "vscode";
import { watchAgentEdits } from "./agentEdits";
import { answerMessageRequest } from "./approvals";
import { CHAT_VIEW_ID, ChatViewProvider } from "./chatView";
import { CompactClient } from "./client";
import { registerCommands } from "./commands";
import { createLog } from "./logging";
import { ServerNotRunningError } from "./serverStart";
import { failureOutcome } from "./model/commandModel";
import { announceAutoCompactions, notify, warnBeforeAgentsCompact } from "./notify";
import { ProposedChanges } from "./proposedChanges";
import { SessionsView } from "./sessionsView";
import { SummaryDocuments } from "./summaryDocuments";
import { affectsLaunch, affectsServerSettings } from "./settings";
import { createStatusBar } from "./statusBar";
import { UsageViews } from "./usageView";
import { WorkingSetView } from "./workingSetView";

let client: CompactClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = createLog();
  const started = new CompactClient(context.secrets, log);
  client = started;
  const changes = new ProposedChanges();
  const chat = new ChatViewProvider(context.extensionUri, client, changes, log);
  client.setMessageRequestHandler((params) => answerMessageRequest(chat, params));
  const views = new UsageViews(client);
  const sessions = new SessionsView(client, (list) => {
    for (const session of list) {
      chat.rememberTitle(session.sessionId, session.title);
    }
  });
  // the Sessions view's welcome says the server did not start (New Chat would fail) rather than "No sessions yet"
  const serverFailed = (): Thenable<unknown> =>
    vscode.commands.executeCommand("setContext", "compactLsp.serverFailed", started.startFailure !== undefined);
  context.subscriptions.push(
    started.onDidChangeState(serverFailed),
    // a server that crashed and did not start again: one toast, as for a start that failed
    started.onDidFailRestart((failure) => {
      const outcome = failureOutcome("Restarting the server", new ServerNotRunningError(failure));
      log.error(outcome.text);
      notify(outcome);
    }),
    log,
    client,
    changes,
    new SummaryDocuments(client),
    chat,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    views,
    new WorkingSetView(client),
    sessions,
    createStatusBar(client),
    watchAgentEdits(client, log),
    announceAutoCompactions(client.onDidCompact),
    warnBeforeAgentsCompact(
      client.onDidChangeUsage,
      (sessionId) => started.owners.readOnlyOwner(sessionId),
      (sessionId) => chat.titleOf(sessionId),
    ),
    ...registerCommands({ client, views, chat, sessions, log, secrets: context.secrets }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void vscode.commands.executeCommand("setContext", "compactLsp.restricted", false);
      chat.refresh();
      void startServer(log);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (client === undefined || !vscode.workspace.isTrusted) {
        return;
      }
      if (affectsLaunch(event)) {
        void client.restart().catch((error: unknown) => notify(failureOutcome("Restart", error)));
      } else if (affectsServerSettings(event)) {
        void client.pushSettings();
      }
    }),
  );
  if (!vscode.workspace.isTrusted) {
    // Restricted Mode: no server (the chat and the gauge say so) until the user trusts the folder
    void vscode.commands.executeCommand("setContext", "compactLsp.restricted", true);
    log.info("Restricted Mode: the server starts once the workspace is trusted.");
    return;
  }
  await startServer(log);
}

async function startServer(log: vscode.LogOutputChannel): Promise<void> {
  try {
    await client?.start();
  } catch (error) {
    const outcome = failureOutcome("Starting the server", error);
    log.error(outcome.text);
    notify(outcome);
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
