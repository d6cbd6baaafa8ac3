// Activation only: build the pieces, wire them together, start the server. Each piece lives in its own module.
import * as vscode from "vscode";
import { ChatView } from "./chatView";
import { CompactClient } from "./client";
import { Commands, registerCommands } from "./commands";
import { createLog } from "./logging";
import { affectsLaunch, affectsServerSettings } from "./settings";
import { createStatusBar } from "./statusBar";
import { UsageViews } from "./usageView";

let client: CompactClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = createLog();
  client = new CompactClient(context.secrets, log);
  const views = new UsageViews(client);
  const chat = new ChatView(client, log);
  context.subscriptions.push(
    log,
    client,
    views,
    chat,
    createStatusBar(client),
    ...registerCommands({ client, views, chat, log, secrets: context.secrets }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (client === undefined) {
        return;
      }
      if (affectsLaunch(event)) {
        void client.restart().catch((error: unknown) => log.error(`Restart failed: ${String(error)}`));
      } else if (affectsServerSettings(event)) {
        void client.pushSettings();
      }
    }),
  );
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.error(`The server did not start: ${message}`);
    void vscode.window.showErrorMessage(`Compact: ${message}`, "Show Server Log").then((choice) => {
      if (choice !== undefined) {
        void vscode.commands.executeCommand(Commands.showServerLog);
      }
    });
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
