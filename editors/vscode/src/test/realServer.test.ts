// The real server through vscode-jsonrpc, the client library family VS Code's language client is built on: it
// rejects any byte on stdout that is not a JSON-RPC frame, which Neovim and pytest-lsp tolerate.
import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import type { MessageConnection } from "vscode-jsonrpc/node";
import { StreamMessageReader, StreamMessageWriter, createMessageConnection } from "vscode-jsonrpc/node";
import type { ChatEvent, ChatResult, DidChangeUsageParams, ImportSessionResult, MessagesView, MicrocompactResult, SessionInfo, Status, Usage } from "../protocol";
import { CLEARED_TOOL_RESULT, Methods, ServerCommands } from "../protocol";
import { EMPTY_TRANSCRIPT, applyChatEvent, endTurn, startTurn } from "../model/chatModel";
import { renderTranscript } from "../model/chatPage";
import { transcriptFromRecords } from "../model/chatRestore";
import { failureOutcome } from "../model/commandModel";
import { sessionOwner, sessionTooltip } from "../model/sessions";
import { didChangeConfigurationParams, toServerSettings } from "../model/serverSettings";
import { config } from "./fixtures";
import type { StubServer } from "./messagesApiStub";
import { startMessagesApiStub } from "./messagesApiStub";

const REPO_ROOT = path.resolve(__dirname, "..", "..", "..", "..");
const PYTHON = process.env.COMPACT_LSP_PYTHON ?? path.join(REPO_ROOT, ".venv", "bin", "python");

/** Why the check cannot run here (the server module is not importable yet), or undefined when it can. */
function skipReason(): string | undefined {
  if (!fs.existsSync(PYTHON)) {
    return `no Python at ${PYTHON} (set COMPACT_LSP_PYTHON)`;
  }
  const probe = spawnSync(PYTHON, ["-c", "import compact_lsp.lsp.server"], { encoding: "utf8" });
  if (probe.status !== 0) {
    return `compact_lsp.lsp.server is not importable with ${PYTHON} yet: ${probe.stderr.trim().split("\n").pop()}`;
  }
  return undefined;
}

/**
 * Splits everything the server wrote to stdout into JSON-RPC frames; throws on any stray byte (a print(), a
 * warning, a banner) exactly where VS Code's reader would choke.
 */
export function jsonRpcFrames(stdout: Buffer): unknown[] {
  const frames: unknown[] = [];
  let offset = 0;
  while (offset < stdout.length) {
    const headerEnd = stdout.indexOf("\r\n\r\n", offset);
    if (headerEnd < 0) {
      throw new Error(`stray bytes on stdout at ${offset}: ${JSON.stringify(stdout.subarray(offset, offset + 80).toString())}`);
    }
    const header = stdout.subarray(offset, headerEnd).toString("ascii");
    const lengths = header
      .split("\r\n")
      .map((line) => /^Content-Length: (\d+)$/i.exec(line))
      .filter((match) => match !== null);
    const badLine = header.split("\r\n").find((line) => !/^(Content-Length|Content-Type): /i.test(line));
    if (lengths.length !== 1 || badLine !== undefined) {
      throw new Error(`not a JSON-RPC header at ${offset}: ${JSON.stringify(header.slice(0, 120))}`);
    }
    const bodyStart = headerEnd + 4;
    const bodyEnd = bodyStart + Number(lengths[0]![1]);
    if (bodyEnd > stdout.length) {
      throw new Error(`truncated frame at ${offset}`);
    }
    const body = JSON.parse(stdout.subarray(bodyStart, bodyEnd).toString("utf8"));
    assert.equal(body.jsonrpc, "2.0");
    frames.push(body);
    offset = bodyEnd;
  }
  return frames;
}

const reason = skipReason();

/** Codex's home with one session of the workspace, as Codex 0.171.0 writes it (its skills, its environment context,
 * the request, an exec_command call and its output, the answer), last written days ago; returns the home. */
function writeCodexSession(state: string, cwd: string): string {
  const home = path.join(state, "codex-home");
  const day = path.join(home, "sessions", "2026", "12", "01");
  fs.mkdirSync(day, { recursive: true });
  const thread = "01a24915-0369-7163-81ea-9e0d2d33ba44";
  const item = (payload: unknown) => ({ type: "response_item", payload });
  const text = (role: string, words: string) =>
    item({ type: "message", role, content: [{ type: role === "assistant" ? "output_text" : "input_text", text: words }] });
  const records = [
    { type: "session_meta", payload: { id: thread, cwd, cli_version: "0.171.0" } },
    text("developer", "<skills_instructions>\n## Skills\n</skills_instructions><tools>\nx\n</tools>"),
    text("user", `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>`),
    text("user", "explain main.py"),
    item({ type: "function_call", name: "exec_command", call_id: "call_1",
      arguments: JSON.stringify({ cmd: "cat src/main.py", yield_time_ms: 2000 }) }),
    item({ type: "function_call_output", call_id: "call_1",
      output: "Chunk ID: 2e991e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\nimport utils\n\nprint(utils.answer())\n" }),
    text("assistant", "It prints the answer."),
  ];
  const file = path.join(day, `rollout-2026-12-01T10-00-00-${thread}.jsonl`);
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r) + "\n").join(""));
  const past = new Date("2026-12-01T10:00:00Z");
  fs.utimesSync(file, past, past);
  return home;
}

describe("the real server over vscode-jsonrpc", { skip: reason, timeout: 60_000 }, () => {
  let workspace: string;
  let server: ChildProcessWithoutNullStreams;
  let connection: MessageConnection;
  const stdout: Buffer[] = [];
  const stderr: string[] = [];
  const usageEvents: DidChangeUsageParams[] = [];
  const usageWaiters: { predicate: (p: DidChangeUsageParams) => boolean; resolve: (p: DidChangeUsageParams) => void }[] = [];
  const chatEvents: ChatEvent[] = [];
  let stub: StubServer;
  let exited: Promise<number | null>;
  let sessionId: string;
  let codexHome: string;

  /** Resolves on the first compact/didChangeUsage (already received or future) that matches. */
  function usageNotification(predicate: (p: DidChangeUsageParams) => boolean): Promise<DidChangeUsageParams> {
    const seen = usageEvents.find(predicate);
    if (seen !== undefined) {
      return Promise.resolve(seen);
    }
    return new Promise((resolve) => usageWaiters.push({ predicate, resolve }));
  }

  before(async () => {
    stub = await startMessagesApiStub([
      [
        { type: "text", text: "Let me read it." },
        { type: "tool_use", id: "toolu_chat_1", name: "read_file", input: { file_path: "src/utils.py" } },
      ],
      [{ type: "text", text: "answer() returns <42>." }],
    ]);
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), "compact-vscode-"));
    const state = path.join(workspace, ".state");
    fs.mkdirSync(path.join(workspace, "src"));
    fs.writeFileSync(path.join(workspace, "src", "main.py"), "import utils\n\nprint(utils.answer())\n".repeat(40));
    fs.writeFileSync(path.join(workspace, "src", "utils.py"), "def answer():\n    return 42\n".repeat(40));
    codexHome = writeCodexSession(state, fs.realpathSync(workspace));
    server = spawn(PYTHON, ["-m", "compact_lsp", "--stdio"], {
      cwd: workspace,
      env: {
        ...process.env,
        XDG_STATE_HOME: state,
        XDG_CONFIG_HOME: path.join(state, "config"),
        XDG_DATA_HOME: path.join(state, "data"),
        XDG_CACHE_HOME: path.join(state, "cache"),
        ANTHROPIC_BASE_URL: stub.baseUrl,
        ANTHROPIC_API_KEY: "test-key",
      },
    });
    exited = new Promise((resolve) => server.on("exit", (code) => resolve(code)));
    server.stderr.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    // Keep a copy of every stdout byte, then hand the same bytes to the reader.
    const tap = new PassThrough();
    server.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
      tap.write(chunk);
    });
    server.stdout.on("end", () => tap.end());
    connection = createMessageConnection(new StreamMessageReader(tap), new StreamMessageWriter(server.stdin));
    connection.onRequest("window/workDoneProgress/create", () => null);
    connection.onRequest("client/registerCapability", () => null);
    connection.onRequest("workspace/configuration", (params: { items: unknown[] }) => params.items.map(() => null));
    connection.onRequest("window/showMessageRequest", () => null);
    connection.onNotification(Methods.didChangeUsage, (params: DidChangeUsageParams) => {
      usageEvents.push(params);
      for (const waiter of usageWaiters.splice(0)) {
        if (waiter.predicate(params)) {
          waiter.resolve(params);
        } else {
          usageWaiters.push(waiter);
        }
      }
    });
    connection.onNotification(Methods.chatEvent, (params: ChatEvent) => chatEvents.push(params));
    connection.listen();
    const rootUri = pathToFileURL(workspace).href;
    await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: "workspace" }],
      capabilities: { window: { workDoneProgress: true, showMessage: {} }, workspace: { configuration: true } },
      initializationOptions: {
        sessionDir: path.join(state, "sessions"),
        microcompact: { keepRecent: 1 },
        claudeCode: { follow: false },
        codex: { home: codexHome },
      },
    });
    await connection.sendNotification("initialized", {});
  });

  after(async () => {
    await stub?.close();
    connection?.dispose();
    if (server !== undefined && server.exitCode === null) {
      server.kill();
    }
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  test("a new session gets an id", async () => {
    const created = await connection.sendRequest<{ sessionId: string }>(Methods.newSession, { title: "vscode-jsonrpc check" });
    assert.match(created.sessionId, /^ses_/);
    sessionId = created.sessionId;
  });

  let appended: Usage;
  test("appended reads are counted", async () => {
    const result = await connection.sendRequest<{ usage: Usage }>(Methods.append, {
      sessionId,
      messages: [
        { role: "user", content: "Read src/main.py and src/utils.py" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { file_path: "src/main.py" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: fs.readFileSync(path.join(workspace, "src", "main.py"), "utf8") }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "read_file", input: { file_path: "src/utils.py" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: fs.readFileSync(path.join(workspace, "src", "utils.py"), "utf8") }] },
        { role: "assistant", content: [{ type: "text", text: "utils.answer() returns 42." }] },
      ],
    });
    appended = result.usage;
    assert.equal(appended.contextWindow, 200000);
    assert.ok(appended.byKind.toolResult > appended.byKind.userText, JSON.stringify(appended.byKind));
    assert.ok(appended.total > 300, `total ${appended.total}`);
  });

  test("compact/status reports the same usage", async () => {
    const status = await connection.sendRequest<Status>(Methods.status, { sessionId });
    assert.equal(status.sessionId, sessionId);
    assert.equal(status.usage.total, appended.total);
    assert.equal(status.compacting, false);
  });

  test("a setting the user resets reaches the server without a restart (sent as null, the default again)", async () => {
    // what initializationOptions set stays set; everything else is unset, as in a new user's settings.json
    const kept = { sessionDir: path.join(workspace, ".state", "sessions"), "microcompact.keepRecent": 1 };
    const push = (values: Record<string, unknown>) =>
      connection.sendNotification(
        "workspace/didChangeConfiguration",
        didChangeConfigurationParams(toServerSettings(config({ ...kept, ...values }), [], "null")),
      );
    const threshold = async () => (await connection.sendRequest<Status>(Methods.status, { sessionId })).usage.autoCompactThreshold;
    const byDefault = await threshold();
    await push({ "autoCompact.threshold": 3000 });
    assert.equal(await threshold(), 3000);
    await push({}); // the user removed it from settings.json
    assert.equal(await threshold(), byDefault);
  });

  test("compact/sessions lists it, most recent first", async () => {
    const sessions = await connection.sendRequest<SessionInfo[]>(Methods.sessions, {});
    assert.equal(sessions[0]?.sessionId, sessionId);
    assert.equal(sessions[0]?.title, "vscode-jsonrpc check");
    assert.equal(sessions[0]?.usage.total, appended.total);
  });

  let micro: MicrocompactResult;
  test("compact.microcompact clears the older read and keeps the recent one", async () => {
    micro = await connection.sendRequest<MicrocompactResult>("workspace/executeCommand", {
      command: ServerCommands.microcompact,
      arguments: [{ sessionId }],
    });
    assert.deepEqual(micro.cleared.map((c) => c.toolUseId), ["toolu_1"]);
    assert.ok(micro.tokensAfter < micro.tokensBefore, `${micro.tokensBefore} → ${micro.tokensAfter}`);
    const view = await connection.sendRequest<MessagesView>(Methods.messages, { sessionId });
    const results = view.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).filter((b) => b.type === "tool_result");
    const content = (id: string): unknown => results.find((b) => b.tool_use_id === id)?.content;
    const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));
    assert.ok(text(content("toolu_1")).includes(CLEARED_TOOL_RESULT));
    assert.ok(text(content("toolu_2")).includes("return 42"));
  });

  test("the status bar hears about it: compact/didChangeUsage with the smaller total", async () => {
    const event = await usageNotification((p) => p.sessionId === sessionId && p.usage.total === micro.tokensAfter);
    assert.ok(event.usage.total < appended.total);
  });

  test("a chat turn streams events that the chat view draws as the user expects", async () => {
    const chat = await connection.sendRequest<{ sessionId: string }>(Methods.newSession, { title: "chat" });
    const result = await connection.sendRequest<ChatResult>(Methods.chat, { sessionId: chat.sessionId, text: "What does answer() return?" });
    assert.equal(result.stopReason, "end_turn", JSON.stringify(result));
    // Every event of the turn arrived before its response: the view is complete when the request returns.
    const mine = chatEvents.filter((event) => event.sessionId === chat.sessionId);
    const transcript = endTurn(mine.reduce(applyChatEvent, startTurn(EMPTY_TRANSCRIPT, "What does answer() return?")), result);
    assert.deepEqual(
      transcript.entries.slice(0, 4).map((entry) => (entry.kind === "tool" ? `${entry.name} ${entry.summary} ${entry.state}` : `${entry.kind}: ${"text" in entry ? entry.text : ""}`)),
      ["user: What does answer() return?", "assistant: Let me read it.", "read_file src/utils.py done", "assistant: answer() returns <42>."],
    );
    const tool = transcript.entries[2];
    assert.ok(tool.kind === "tool" && tool.result.includes("return 42"), JSON.stringify(tool));
    assert.ok(renderTranscript(transcript).includes("answer() returns &lt;42&gt;."));
    assert.equal(stub.requests.length, 2);
    assert.deepEqual(stub.refused, []); // every request was one the real API accepts
  });

  test("a Codex session is Codex's in every word, shown as its user saw it, and imports as the user's own copy", async () => {
    let codex: SessionInfo | undefined;
    for (let i = 0; i < 100 && codex === undefined; i++) {
      codex = (await connection.sendRequest<SessionInfo[]>(Methods.sessions, {})).find((s) => s.source === "codex");
      if (codex === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.ok(codex !== undefined, "Codex's session was never listed");
    assert.equal(codex.readOnly, true);
    assert.equal(sessionOwner(codex), "Codex");
    assert.match(sessionTooltip(codex, false), /Codex owns its context/);
    assert.doesNotMatch(sessionTooltip(codex, false), /Claude Code/);
    // a change is refused in Codex's words, with the way forward
    const refused = await connection
      .sendRequest("workspace/executeCommand", { command: ServerCommands.microcompact, arguments: [{ sessionId: codex.sessionId }] })
      .then(() => undefined, (error: unknown) => error);
    const outcome = failureOutcome("Microcompaction", refused);
    assert.match(outcome.text, /Codex owns its context.*Import to continue/);
    assert.doesNotMatch(outcome.text, /Claude Code|another window|OwnedBy/);
    // the chat shows the request, the command row and its output; none of Codex's plumbing
    const shown = await connection.sendRequest<{ entries: unknown[] }>(Methods.transcript, { sessionId: codex.sessionId });
    const html = renderTranscript(transcriptFromRecords(shown.entries));
    assert.ok(html.includes("explain main.py") && html.includes("cat src/main.py") && html.includes("print(utils.answer())"), html);
    for (const plumbing of ["environment_context", "skills_instructions", "Chunk ID", "yield_time_ms"]) {
      assert.ok(!html.includes(plumbing), `${plumbing} is shown: ${html}`);
    }
    // Import to continue: a copy with its own id, writable, listed once beside Codex's (which stays Codex's)
    const copy = await connection.sendRequest<ImportSessionResult>(Methods.importSession, { sessionId: codex.sessionId });
    assert.notEqual(copy.sessionId, codex.sessionId);
    const listed = await connection.sendRequest<SessionInfo[]>(Methods.sessions, {});
    const rows = listed.filter((s) => s.sessionId === copy.sessionId || s.sessionId === codex.sessionId);
    assert.deepEqual(
      rows.map((s) => [s.sessionId, s.readOnly]).sort(),
      [[codex.sessionId, true], [copy.sessionId, false]].sort(),
    );
    await connection.sendRequest(Methods.append, { sessionId: copy.sessionId, messages: [{ role: "user", content: "go on" }] });
  });

  test("shutdown and exit end the process cleanly, and stdout held only JSON-RPC", async () => {
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
    assert.equal(await exited, 0, stderr.join(""));
    const frames = jsonRpcFrames(Buffer.concat(stdout));
    assert.ok(frames.length >= 6, `only ${frames.length} frames`);
  });
});

describe("jsonRpcFrames", () => {
  const frame = (body: object): string => {
    const json = JSON.stringify(body);
    return `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
  };
  test("accepts back-to-back frames", () => {
    const out = Buffer.from(frame({ jsonrpc: "2.0", id: 1, result: null }) + frame({ jsonrpc: "2.0", method: "x" }));
    assert.equal(jsonRpcFrames(out).length, 2);
  });
  const cases: [string, string][] = [
    ["print-before", `hello\n${frame({ jsonrpc: "2.0", id: 1, result: null })}`],
    ["print-between", `${frame({ jsonrpc: "2.0", id: 1, result: null })}warning: x\n`],
    ["wrong-length", `Content-Length: 3\r\n\r\n{"jsonrpc": "2.0"}`],
  ];
  for (const [id, out] of cases) {
    test(`rejects ${id}`, () => assert.throws(() => jsonRpcFrames(Buffer.from(out))));
  }
});
