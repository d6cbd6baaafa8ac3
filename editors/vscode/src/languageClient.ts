// The server's start-up: the language client as the extension builds it (the server process and its environment,
// the documents the server is told about, the initialization options) and the version check once it runs.
// client.ts starts it, follows the current session and sends the requests.
import * as vscode from "vscode";
import type { LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import { DidSaveTextDocumentNotification, LanguageClient, State, TransportKind } from "vscode-languageclient/node";
import type { ServerLaunch } from "./model/serverSettings";
import { serverEnvironment } from "./model/serverSettings";
import { versionMismatch } from "./model/serverVersion";
import { currentServerSettings } from "./settings";

/**
 * The language client, except that a server which exits cleanly (code 0, on stop or restart) is not an error, and
 * that a server which is not running yet (it fails as it starts, or as the client restarts it) gets no toasts of the
 * client's own ("write EPIPE", "connection to server is erroring", one per attempt): the extension says that once, in
 * its own words, with what to do (client.ts). They stay in the log.
 */
class CompactLanguageClient extends LanguageClient {
  /** Called when the client gives up on a server it restarted by itself (it crashed, and did not start again). */
  onGaveUp: (error: unknown) => void = () => undefined;

  override error(message: string, data?: unknown, showNotification: boolean | "force" = true): void {
    if (/^Server process exited with code 0\.?$/.test(message)) {
      this.info(message, data, false);
      return;
    }
    if (showNotification === "force" && /^Restarting server failed|crashed \d+ times/.test(message)) {
      super.error(message, data, false);
      this.onGaveUp(data ?? message); // said once, in the extension's words, like a start that failed
      return;
    }
    super.error(message, data, this.state === State.Running ? showNotification : false);
  }
}

/**
 * The log as the language client's output channel, with what the server process writes to stderr (the client
 * appends it raw) passed to `onStderr` too: the last line of a server that dies as it starts says why.
 */
function recordingStderr(log: vscode.LogOutputChannel, onStderr: (text: string) => void): vscode.LogOutputChannel {
  return new Proxy(log, {
    get(target, property) {
      if (property === "append") {
        return (text: string) => {
          onStderr(text);
          target.append(text);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A language client for the server `launch` names, not started yet. `running` is the client the extension holds
 * now (undefined once stopped): the middleware's notifications go to it.
 */
export function newLanguageClient(
  launch: ServerLaunch,
  apiKey: string | undefined,
  log: vscode.LogOutputChannel,
  running: () => LanguageClient | undefined,
  onStderr: (text: string) => void = () => undefined,
  onGaveUp: (error: unknown) => void = () => undefined,
): LanguageClient {
  const executable = {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
    options: { env: { ...serverEnvironment(process.env, apiKey), ...launch.env } },
  } as const;
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  const problems: string[] = [];
  const clientOptions: LanguageClientOptions = {
    // Every file document: open editors join the read-file state (open, dirty, focus order).
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    initializationOptions: currentServerSettings(problems),
    outputChannel: recordingStderr(log, onStderr),
    // a server that fails its handshake is not retried, and its error ("write EPIPE") is not a toast: client.ts
    // says why it did not start, once
    initializationFailedHandler: () => false,
    traceOutputChannel: log,
    middleware: {
      // A document that is clean after a change (reloaded from disk after the agent's edit, or undone back to
      // what is saved) matches the file again: tell the server, which would otherwise flag it "unsaved".
      didChange: async (event, next) => {
        await next(event);
        const document = event.document;
        if (!document.isDirty && document.uri.scheme === "file" && event.contentChanges.length > 0) {
          await running()?.sendNotification(DidSaveTextDocumentNotification.type, {
            textDocument: { uri: document.uri.toString() },
          });
        }
      },
    },
  };
  for (const problem of problems) {
    log.warn(problem);
  }
  const client = new CompactLanguageClient("compactLsp", "Compact", serverOptions, clientOptions);
  client.onGaveUp = onGaveUp;
  return client;
}

/** A server of another version than this extension's: said in the log and in a warning. */
export function warnOnVersionMismatch(client: LanguageClient, log: vscode.LogOutputChannel): void {
  const mismatch = versionMismatch(
    client.initializeResult?.capabilities.experimental,
    client.initializeResult?.serverInfo?.version,
  );
  if (mismatch !== undefined) {
    log.warn(mismatch);
    void vscode.window.showWarningMessage(mismatch);
  }
}
