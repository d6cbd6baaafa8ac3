// The "Compact" commands of the palette. Each one builds its arguments with model/commandModel.ts, asks the
// server, and says what happened.
import * as vscode from "vscode";
import type { ChatView } from "./chatView";
import type { CompactClient } from "./client";
import {
  compactParams,
  describeCompact,
  describeMicrocompact,
  describeUndo,
  executeCommandParams,
} from "./model/commandModel";
import { Commands } from "./model/commandIds";
import type { CompactResult, MicrocompactResult, UndoResult } from "./protocol";
import { ServerCommands } from "./protocol";
import { API_KEY_SECRET } from "./settings";
import type { UsageViews } from "./usageView";

export { Commands };


export interface CommandDependencies {
  client: CompactClient;
  views: UsageViews;
  chat: ChatView;
  log: vscode.LogOutputChannel;
  secrets: vscode.SecretStorage;
}

export function registerCommands(deps: CommandDependencies): vscode.Disposable[] {
  const { client, views, chat, log, secrets } = deps;
  const guarded =
    (name: string, run: () => Promise<unknown>) =>
    async (): Promise<void> => {
      try {
        await run();
      } catch (error) {
        await reportFailure(name, error, log);
      }
    };
  const register = (id: string, name: string, run: () => Promise<unknown>): vscode.Disposable =>
    vscode.commands.registerCommand(id, guarded(name, run));

  return [
    register(Commands.microcompactNow, "Microcompaction", async () => {
      const result = await client.executeCommand<MicrocompactResult>(
        executeCommandParams(ServerCommands.microcompact, client.sessionId),
      );
      void vscode.window.showInformationMessage(describeMicrocompact(result));
    }),
    register(Commands.compactConversation, "Compaction", async () => {
      const instructions = await vscode.window.showInputBox({
        title: "Compact Conversation",
        prompt: "Optional instructions for the summary (what to keep, what to focus on). Enter to compact.",
        placeHolder: "e.g. keep the list of failing tests and the plan",
        ignoreFocusOut: true,
      });
      if (instructions === undefined) {
        return; // Escape: the user changed their mind
      }
      // The server reports cancellable $/progress itself (shown as a notification); this is the status bar spinner.
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: "Compacting conversation" },
        () => client.executeCommand<CompactResult>(compactParams(client.sessionId, instructions)),
      );
      void vscode.window.showInformationMessage(describeCompact(result));
    }),
    register(Commands.undoCompaction, "Undo", async () => {
      const result = await client.executeCommand<UndoResult>(executeCommandParams(ServerCommands.undo, client.sessionId));
      void vscode.window.showInformationMessage(describeUndo(result));
    }),
    register(Commands.showUsage, "Show Context Usage", () => views.showUsage()),
    register(Commands.showRehydrationPreview, "Rehydration preview", () => views.showRehydrationPreview()),
    register(Commands.openChat, "Open Chat", async () => chat.show()),
    register(Commands.showServerLog, "Show Server Log", async () => log.show()),
    register(Commands.restartServer, "Restart", async () => {
      await client.restart();
      void vscode.window.setStatusBarMessage("Compact: server restarted", 3000);
    }),
    register(Commands.setApiKey, "Set API Key", async () => {
      const key = await vscode.window.showInputBox({
        title: "Anthropic API key",
        prompt: "Stored in VS Code's secret storage and passed to the server as ANTHROPIC_API_KEY. Empty removes it.",
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) {
        return;
      }
      if (key.trim() === "") {
        await secrets.delete(API_KEY_SECRET);
      } else {
        await secrets.store(API_KEY_SECRET, key.trim());
      }
      // The key reaches the server through its environment, so it takes a restart.
      await client.restart();
      void vscode.window.showInformationMessage(
        key.trim() === "" ? "Compact: API key removed." : "Compact: API key saved; the server restarted with it.",
      );
    }),
  ];
}

async function reportFailure(name: string, error: unknown, log: vscode.LogOutputChannel): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  log.error(`${name} failed: ${message}`);
  const choice = await vscode.window.showErrorMessage(`Compact: ${name} failed: ${message}`, "Show Server Log");
  if (choice === "Show Server Log") {
    log.show();
  }
}
