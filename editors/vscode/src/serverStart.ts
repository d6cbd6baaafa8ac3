// Why the server is not there to answer: it did not start (the cause in plain words, from the setting at fault or
// the process's own last words on stderr), or the folder is not trusted. The client (client.ts) keeps the last
// failure; the chat and every command say it.
import { ErrorCodes, ResponseError } from "vscode-languageclient/node";
import type { ServerLaunch } from "./model/serverSettings";

export class ServerNotRunningError extends Error {
  /** With a failed start: kind not_started, shown with the setting to fix (failureOutcome). */
  readonly data?: { kind: "not_started" };
  readonly setting?: string;

  constructor(failure?: StartFailure) {
    super(
      failure !== undefined
        ? `${startFailureText(failure)} Fix that, then run “Compact: Restart Server”.`
        : "The Compact server is not running. See “Compact: Show Server Log”, then “Compact: Restart Server”.",
    );
    if (failure !== undefined) {
      this.data = { kind: "not_started" };
      this.setting = failure.setting;
    }
  }
}

/** Why the last start of the server failed: the cause in plain words, and the setting to fix when one is at fault. */
export interface StartFailure {
  reason: string;
  setting?: string;
}

export function startFailureText(failure: StartFailure): string {
  return `Compact's server did not start: ${failure.reason.replace(/\.?$/, ".")}`;
}

/** The folder is not trusted (Restricted Mode): the server is not started, so nothing that needs it can run. */
export class RestrictedModeError extends Error {
  readonly data = { kind: "restricted" };
  constructor() {
    super("Compact is paused in Restricted Mode.");
  }
}

export function isMethodNotFound(error: unknown): boolean {
  return error instanceof ResponseError && error.code === ErrorCodes.MethodNotFound;
}

/** Why a launch failed: what ran, from where, and the process's last words (else the client's own error). */
export function launchFailure(launch: ServerLaunch, words: string, error: unknown): StartFailure {
  const said = words !== "" ? `it stopped as it started: ${words}` : error instanceof Error ? error.message : String(error);
  const setting = launch.source === "server.command" || launch.source === "server.pythonPath" ? `compactLsp.${launch.source}` : undefined;
  return { reason: `${launch.command} ${launch.args.join(" ")} (${launchOrigin(launch.source)}): ${said}`, setting };
}

/** The server process's stderr during one start: its last line (a Python traceback ends with its cause). */
export class StderrTail {
  private last = "";
  private writes = 0;

  /** For the language client's stderr: keeps the last non-empty line. */
  readonly onStderr = (text: string): void => {
    const last = text.split("\n").map((line) => line.trim()).filter((line) => line !== "").at(-1);
    this.writes++;
    if (last !== undefined) {
      this.last = last;
    }
  };

  /** The last line: it arrives after the failed handshake, so wait until stderr is quiet a moment (at most 2 s). */
  async lastWords(): Promise<string> {
    const deadline = Date.now() + 2000;
    let seen = -1;
    while (Date.now() < deadline && (this.writes !== seen || this.last === "")) {
      seen = this.writes;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return this.last;
  }
}

/** Where a launch came from, in the settings' words. */
function launchOrigin(source: ServerLaunch["source"]): string {
  return source === "bundled" ? "the server bundled with the extension" : source === "PATH" ? "compact-lsp on PATH" : `compactLsp.${source}`;
}
