// Shows an Outcome (model/commandModel.ts) as a VS Code message whose buttons do what they say.
import * as vscode from "vscode";
import { Commands } from "./model/commandIds";
import type { Outcome } from "./model/commandModel";
import { fallbackActions, toastText } from "./model/commandModel";
import { describeMarker } from "./model/compactionText";
import { NextCompactionWarnings, warningCommand } from "./model/nextCompaction";
import { settingsTab } from "./model/serverSettings";
import type { DidChangeUsageParams, DidCompactParams } from "./protocol";

export function notify(outcome: Outcome): void {
  const show =
    outcome.severity === "error"
      ? vscode.window.showErrorMessage
      : outcome.severity === "warning"
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const text = toastText(outcome.text); // never "Compact: Compact's"
  void show(text, ...(outcome.actions ?? [])).then((choice) => {
    if (choice === "Show Server Log") {
      void vscode.commands.executeCommand(Commands.showServerLog);
    } else if (choice === "Set API Key") {
      void vscode.commands.executeCommand(Commands.setApiKey);
    } else if (choice === "Microcompact Now") {
      void vscode.commands.executeCommand(Commands.microcompactNow);
    } else if (choice === "Restart Server") {
      void vscode.commands.executeCommand(Commands.restartServer);
    } else if (choice === "Open Settings") {
      void openSetting(outcome.setting ?? "compactLsp");
    }
  });
}

/** This extension, as package.json names it (publisher.name). */
const EXTENSION_ID = "compact-lsp.compact-lsp";

/** The Settings editor at `setting`, on the tab where the user can change it (settingsTab). */
export async function openSetting(setting: string): Promise<void> {
  const declared = (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as Manifest | undefined)?.contributes?.configuration?.properties;
  const sources = vscode.workspace.getConfiguration().inspect(setting);
  const tab = settingsTab({
    machine: declared?.[setting]?.scope === "machine",
    remote: vscode.env.remoteName !== undefined,
    inWorkspace: sources?.workspaceValue !== undefined || sources?.workspaceFolderValue !== undefined,
  });
  await vscode.commands.executeCommand(tab, { query: setting });
}

/** The part of the extension's package.json that says each setting's scope. */
interface Manifest {
  contributes?: { configuration?: { properties?: Record<string, { scope?: string }> } };
}

/** An automatic full compaction (the chat's, an agent's append) gets a toast naming its summariser; manual ones are
 * reported by their command. */
export function announceAutoCompactions(onDidCompact: vscode.Event<DidCompactParams>): vscode.Disposable {
  return onDidCompact((event) => {
    if (event.kind !== "full" || event.trigger === "manual") {
      return;
    }
    const facts = event as DidCompactParams & { summarizer?: string; fallback?: boolean; fallbackReason?: string };
    const text = describeMarker({ ...facts, compaction: "full" });
    notify({
      severity: facts.fallback === true ? "warning" : "info",
      text: `${text}.`,
      actions: facts.fallback === true ? fallbackActions(facts.fallbackReason) : undefined,
    });
  });
}

/** Once when an agent's next automatic compaction comes near (or a setting turns it off): what to do, with buttons
 * that do it (model/nextCompaction.ts), naming the session by its title (the toast outlives a switch of session). */
export function warnBeforeAgentsCompact(
  onDidChangeUsage: vscode.Event<DidChangeUsageParams>,
  ownerOf: (sessionId: string) => string | undefined,
  titleOf: (sessionId: string) => string | undefined,
): vscode.Disposable {
  const warnings = new NextCompactionWarnings();
  return onDidChangeUsage((event) => {
    const warning = warnings.check(event.sessionId, event.usage, ownerOf(event.sessionId), titleOf(event.sessionId));
    if (warning === undefined) {
      return;
    }
    void vscode.window.showWarningMessage(`Compact: ${warning.text}`, ...warning.actions).then((choice) => {
      const command = warningCommand(choice, event.sessionId);
      if (command !== undefined) {
        void vscode.commands.executeCommand(...command);
      }
    });
  });
}
