// The suite's one Messages API stub, as strict as the real API (tests/support/messages_api_stub.py and its rules),
// started as a process: `python -m tests.support.messages_api_process` from the repository root. POST /v1/messages
// answers, in order, the scripted turns, as server-sent events exactly as the API streams them (or one JSON message
// when the request does not stream), and refuses with the API's 400 and words any request the real service would
// refuse. A turn can also be an API error (repeated for the SDK's retries) or a slow answer (to cancel it). With a
// second script, requests without tools (the summariser's) take their turns from it, so background summaries never
// eat the agent's turns. Used by the chat check and by e2e/run.mjs.
import { spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";

export type StubBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** A scripted turn: content blocks, or an error or a delay. */
export type StubTurn =
  | StubBlock[]
  | {
      blocks?: StubBlock[];
      /** Answer only after this long (a client that gives up meanwhile closes the connection). */
      delayMs?: number;
      /** Answer with this API error instead, `repeat` times in a row (the SDK retries 429/5xx). */
      error?: { status: number; type: string; message: string };
      repeat?: number;
    };

export interface StubServer {
  baseUrl: string;
  /** Every request body received, in order. */
  requests: Record<string, unknown>[];
  /** The API's words for every request the stub refused, in order (a test expects none). */
  refused: string[];
  close(): Promise<void>;
}

const REPO_ROOT = path.resolve(__dirname, "..", "..", "..", "..");
const PYTHON = process.env.COMPACT_LSP_PYTHON ?? path.join(REPO_ROOT, ".venv", "bin", "python");

export async function startMessagesApiStub(turns: StubTurn[], summaries?: StubTurn[]): Promise<StubServer> {
  const child = spawn(PYTHON, ["-m", "tests.support.messages_api_process"], {
    cwd: REPO_ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const requests: Record<string, unknown>[] = [];
  const refused: string[] = [];
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.stdin.write(JSON.stringify({ turns, summaries }) + "\n");
  const lines = readline.createInterface({ input: child.stdout });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the Messages API stub exited (${code}) before it started`)));
    lines.on("line", (line) => {
      const event = JSON.parse(line) as { baseUrl?: string; request?: Record<string, unknown>; refused?: string };
      if (event.baseUrl !== undefined) {
        resolve(event.baseUrl);
      } else if (event.request !== undefined) {
        requests.push(event.request);
      } else if (event.refused !== undefined) {
        refused.push(event.refused);
      }
    });
  });
  return {
    baseUrl,
    requests,
    refused,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
