// The "Compact" commands of the palette and the side bar. Each one builds its arguments with
// model/commandModel.ts, asks the server, and says what happened: outcomes as information, failures as errors
// with a way on (Show Server Log, Set API Key, Open Settings).
import * as vscode from "vscode";
import { SummaryDocuments } from "./summaryDocuments";
import type { ChatViewProvider } from "./chatView";
import type { CompactClient } from "./client";
import {
  compactOutcome,
  compactParams,
  describeMicrocompact,
  describeUndo,
  executeCommandParams,
  failureOutcome,
} from "./model/commandModel";
import { Commands, WALKTHROUGH_ID } from "./model/commandIds";
import {
  CLAUDE_CODE,
  CODEX,
  describeHookChange,
  GEMINI_CLI,
  type HookAgent,
  hookChoices,
  QWEN_CODE,
} from "./model/claudeCodeHook";
import { pickerItem, renameParams, sessionOwner, titleProblem } from "./model/sessions";
import type { SessionItem } from "./model/sessions";
import { notify } from "./notify";
import { pinFile, unpinPicked } from "./pins";
import type { CompactResult, InstallClaudeCodeHookResult, MicrocompactResult, UndoResult } from "./protocol";
import { Methods, ServerCommands } from "./protocol";
import { API_KEY_SECRET } from "./settings";
import type { SessionsView } from "./sessionsView";
import type { UsageViews } from "./usageView";

export { Commands };

export interface CommandDependencies {
  client: CompactClient;
  views: UsageViews;
  chat: ChatViewProvider;
  sessions: SessionsView;
  log: vscode.LogOutputChannel;
  secrets: vscode.SecretStorage;
}

export function registerCommands(deps: CommandDependencies): vscode.Disposable[] {
  const { client, views, chat, sessions, log, secrets } = deps;
  const register = (id: string, name: string, run: (...args: unknown[]) => Promise<unknown>): vscode.Disposable =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        await run(...args);
      } catch (error) {
        const outcome = failureOutcome(name, error);
        log[outcome.severity === "error" ? "error" : "info"](outcome.text);
        notify(outcome);
      }
    });
  const sessionArgument = (arg: unknown): string | undefined =>
    typeof arg === "string" ? arg : typeof (arg as SessionItem | undefined)?.sessionId === "string" ? (arg as SessionItem).sessionId : undefined;

  return [
    register(Commands.microcompactNow, "Microcompaction", async () => {
      const result = await client.executeCommand<MicrocompactResult>(
        executeCommandParams(ServerCommands.microcompact, client.sessionId),
      );
      notify({ severity: "info", text: describeMicrocompact(result) });
    }),
    register(Commands.compactConversation, "Compaction", async (arg) => {
      const sessionId = sessionArgument(arg) ?? client.sessionId; // a warning's button names its session
      const instructions = await vscode.window.showInputBox({
        title: "Compact Conversation",
        prompt: "Optional instructions for the summary (what to keep, what to focus on). Enter to compact.",
        placeHolder: "e.g. keep the list of failing tests and the plan",
        ignoreFocusOut: true,
      });
      if (instructions === undefined) {
        return; // Escape: the user changed their mind
      }
      // Progress: the server's cancellable $/progress, shown as a notification (progress.ts).
      const result = await client.executeCommand<CompactResult>(compactParams(sessionId, instructions));
      notify(compactOutcome(result));
    }),
    register(Commands.undoCompaction, "Undo", async () => {
      const result = await client.executeCommand<UndoResult>(executeCommandParams(ServerCommands.undo, client.sessionId));
      notify({ severity: "info", text: describeUndo(result) });
    }),
    register(Commands.showUsage, "Show Context Usage", () => views.showUsage()),
    register(Commands.showTimeline, "Compaction Timeline", async (arg) => {
      const sessionId = sessionArgument(arg) ?? client.sessionId;
      if (sessionId === undefined) {
        notify({ severity: "info", text: "No session yet: the timeline shows a session's compactions once it has one." });
        return;
      }
      const document = await vscode.workspace.openTextDocument(SummaryDocuments.timelineUri(sessionId));
      await vscode.window.showTextDocument(document, { preview: true });
    }),
    register(Commands.showRehydrationPreview, "Rehydration preview", () => views.showRehydrationPreview()),
    register(Commands.openChat, "Open Chat", () => chat.show()),
    register(Commands.focusChat, "Focus Chat", () => chat.focusInput()),
    register(Commands.sendMessage, "Send", async () => chat.submit()),
    register(Commands.stopTurn, "Stop", async () => chat.stop()),
    register(Commands.openWalkthrough, "Get Started", () =>
      Promise.resolve(vscode.commands.executeCommand("workbench.action.openWalkthrough", WALKTHROUGH_ID, false)),
    ),
    register(Commands.newChat, "New Chat", () => chat.newChat()),
    register(Commands.selectSession, "Open Session", async (arg) => {
      const sessionId = sessionArgument(arg) ?? (await pickSession(client));
      if (sessionId !== undefined) {
        // Claude Code's sessions open read-only: their transcript, no input, and Import to continue
        await client.selectSession(sessionId);
        await chat.show();
      }
    }),
    register(Commands.showSessionUsage, "Show Context Usage", async (arg) => {
      const sessionId = sessionArgument(arg);
      if (sessionId !== undefined) {
        await client.selectSession(sessionId);
      }
      await views.showUsage();
    }),
    register(Commands.renameSession, "Rename", async (arg) => {
      const sessionId = sessionArgument(arg) ?? client.sessionId;
      const session =
        sessionId === undefined
          ? undefined
          : (sessions.byId(sessionId) ?? (await client.listSessions()).find((s) => s.sessionId === sessionId));
      if (session === undefined) {
        notify({ severity: "info", text: "No session to rename: open one in the Sessions view first." });
        return;
      }
      if (session.readOnly === true) {
        const owner = sessionOwner(session) ?? "The agent";
        notify({ severity: "info", text: `${owner}'s sessions keep ${owner}'s title; import one (Import to continue) to rename it.` });
        return;
      }
      const input = await vscode.window.showInputBox({
        title: "Rename Session",
        prompt: "The session's new title",
        value: session.title,
        valueSelection: [0, session.title.length],
        validateInput: titleProblem,
        ignoreFocusOut: true,
      });
      const params = input === undefined ? undefined : renameParams(session, input);
      if (params === undefined) {
        return; // Escape, or the same title
      }
      await client.request(Methods.renameSession, params);
      client.sessionsChanged();
    }),
    register(Commands.importSession, "Import", async () => {
      const picked = await vscode.window.showOpenDialog({
        title: "Import a Claude Code session",
        openLabel: "Import",
        canSelectMany: false,
        filters: { "Claude Code session": ["jsonl"] },
      });
      if (picked?.[0] === undefined) {
        return;
      }
      const result = await client.request<{ sessionId: string; title: string; problems: string[]; repairs: string[] }>(
        Methods.importSession,
        { path: picked[0].fsPath },
      );
      await client.selectSession(result.sessionId);
      await client.listSessions(); // the copy's importedFrom, for the chat's header
      client.sessionsChanged();
      await chat.show();
      const notes = [...result.repairs, ...result.problems];
      notify({
        severity: "info",
        text: `Imported “${result.title}”: continue it in the chat.${notes.length > 0 ? ` ${notes.length} note(s): ${notes.slice(0, 3).join("; ")}` : ""}`,
      });
    }),
    register(Commands.refreshSessions, "Refresh", async () => sessions.refresh()),
    register(Commands.pinFile, "Pin", (arg) => pinFile(client, arg)),
    register(Commands.unpin, "Unpin", () => unpinPicked(client)),
    register(Commands.claudeCodeHook, "Install the Claude Code Hook", async () =>
      installHook(client, CLAUDE_CODE, ServerCommands.installClaudeCodeHook),
    ),
    register(Commands.codexHook, "Install the Codex Hook", async () =>
      installHook(client, CODEX, ServerCommands.installCodexHook),
    ),
    register(Commands.qwenCodeHook, "Install the Qwen Code Hook", async () =>
      installHook(client, QWEN_CODE, ServerCommands.installQwenCodeHook),
    ),
    register(Commands.geminiCliHook, "Install the Gemini CLI Hook", async () =>
      installHook(client, GEMINI_CLI, ServerCommands.installGeminiCLIHook),
    ),
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
      notify({
        severity: "info",
        text: key.trim() === "" ? "API key removed." : "API key saved; the server restarted with it.",
      });
    }),
  ];
}

async function pickSession(client: CompactClient): Promise<string | undefined> {
  const sessions = await client.listSessions();
  const now = new Date();
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({ ...pickerItem(session, session.sessionId === client.sessionId, now), id: session.sessionId })),
    { title: "Open a session in the chat", matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.id;
}

/** Pick where to install (or remove) the agent's hook, ask the server, and say what it did. */
async function installHook(client: CompactClient, agent: HookAgent, command: string): Promise<void> {
  const picked = await vscode.window.showQuickPick(hookChoices((vscode.workspace.workspaceFolders?.length ?? 0) > 0, agent), {
    title: `Install the compact-lsp hook into ${agent.name} (it adds what ${agent.name}'s compaction drops)`,
  });
  if (picked === undefined) {
    return;
  }
  const result = await client.executeCommand<InstallClaudeCodeHookResult>({ command, arguments: [{ ...picked.argument }] });
  notify(describeHookChange(result, picked.argument.uninstall === true, agent));
}
