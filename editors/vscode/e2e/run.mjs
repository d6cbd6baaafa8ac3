// End to end in a real VS Code (code-server), driven by playwright-core in Debian's chromium:
// a session with reads (made over the protocol, as an agent would) → the status bar gauge shows it → the palette runs
// "Compact: Compact Conversation…" → the notification says what it did, the gauge drops → a click on the gauge
// opens the usage view → "Compact: Open Chat" answers through the agent (the Messages API is a loopback stub).
// Run `bash e2e/setup.sh` first (or `npm run e2e`). Screenshots land in e2e/.work/screens.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const EXTENSION = path.resolve(here, "..");
const REPO = path.resolve(EXTENSION, "..", "..");
const WORK = path.join(here, ".work");
const PYTHON = process.env.COMPACT_LSP_PYTHON ?? path.join(REPO, ".venv", "bin", "python");
const NODE24_BIN = path.join(WORK, "node24", "node_modules", "node", "bin");
const CODE_SERVER = path.join(WORK, "cs", "node_modules", ".bin", "code-server");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const VSIX = path.join(EXTENSION, "compact-lsp.vsix");
const SCREENS = path.join(WORK, "screens");
const STEP_TIMEOUT = 60_000;

const { chromium } = createRequire(path.join(WORK, "pw", "package.json"))("playwright-core");
// Compiled by `npm run build:tests`.
const { startMessagesApiStub } = createRequire(import.meta.url)("../out/test/messagesApiStub.js");

const started = Date.now();
function step(message) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A session with reads, made the way any agent makes one: a separate server on stdio, compact/newSession and
 * compact/append (the user asks, the assistant reads every file, then answers). It is stored in the session
 * directory, where the server that VS Code starts finds it.
 */
async function seedSession(dirs, files) {
  const rpc = createRequire(path.join(EXTENSION, "package.json"))("vscode-jsonrpc/node");
  const child = spawn(PYTHON, ["-m", "compact_lsp", "--stdio"], { cwd: dirs.workspace, stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  connection.onRequest(() => null);
  connection.listen();
  const rootUri = pathToFileURL(dirs.workspace).href;
  await connection.sendRequest("initialize", {
    processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: "workspace" }], capabilities: {},
    initializationOptions: { sessionDir: dirs.sessions },
  });
  await connection.sendNotification("initialized", {});
  const { sessionId } = await connection.sendRequest("compact/newSession", { title: "How is the report built?" });
  const messages = [{ role: "user", content: "Read the source files and explain how the report is built." }];
  files.forEach((file, i) => {
    const id = `toolu_e2e_${i}`;
    messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "read_file", input: { file_path: path.relative(dirs.workspace, file) } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: fs.readFileSync(file, "utf8") }] });
  });
  // A long test run and a long discussion: what compaction summarises away (the reads come back by rehydration).
  const testLog = Array.from({ length: 1500 }, (_, i) => `tests/test_report.py::test_column_${i} PASSED [${Math.floor((100 * i) / 1500)}%]`).join("\n");
  messages.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_e2e_tests", name: "Bash", input: { command: "pytest -v" } }] });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_e2e_tests", content: testLog }] });
  for (let turn = 0; turn < 12; turn++) {
    messages.push({ role: "assistant", content: [{ type: "text", text: `Step ${turn}: ` + "report.py formats the rows that data.py loads; main.py wires them together. ".repeat(40) }] });
    messages.push({ role: "user", content: `And what about column ${turn}?` });
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "Every column is a slice of the formatted rows." }] });
  const { usage } = await connection.sendRequest("compact/append", { sessionId, messages });
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  await new Promise((resolve) => child.once("exit", resolve));
  connection.dispose();
  return { sessionId, usage };
}

function prepare() {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-")));
  const workspace = path.join(run, "workspace");
  const sessions = path.join(run, "sessions");
  const user = path.join(run, "user");
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  const sources = {
    "main.py": "from data import load\nfrom report import render\n\nprint(render(load('rows.csv')))\n",
    "data.py": Array.from({ length: 120 }, (_, i) => `def field_${i}(row):\n    return row[${i % 7}].strip()\n`).join("\n"),
    "report.py": Array.from({ length: 150 }, (_, i) => `def column_${i}(rows):\n    return [str(r) for r in rows if r][${i}:]\n`).join("\n"),
  };
  const files = Object.entries(sources).map(([name, text]) => {
    const file = path.join(workspace, "src", name);
    fs.writeFileSync(file, text);
    return file;
  });
  const settings = JSON.stringify({
    "compactLsp.server.pythonPath": PYTHON,
    "compactLsp.sessionDir": sessions,
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "workbench.tips.enabled": false,
    "chat.disableAIFeatures": true,
  }, null, 2);
  // code-server is a remote window: machine-scoped settings (the server's path) are read from Machine/, the rest
  // from User/.
  for (const scope of ["User", "Machine"]) {
    fs.mkdirSync(path.join(user, scope), { recursive: true });
    fs.writeFileSync(path.join(user, scope, "settings.json"), settings);
  }
  return { run, workspace, sessions, user, files, extensions: path.join(run, "extensions") };
}

function check(result, what) {
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

async function main() {
  for (const [what, file] of [["code-server (run e2e/setup.sh)", CODE_SERVER], ["the .vsix (npm run package)", VSIX], ["chromium", CHROMIUM], ["the server's Python", PYTHON]]) {
    if (!fs.existsSync(file)) {
      throw new Error(`missing ${what}: ${file}`);
    }
  }
  fs.mkdirSync(SCREENS, { recursive: true });
  const dirs = prepare();
  step(`workspace ${dirs.workspace}`);
  const seeded = await seedSession(dirs, dirs.files);
  step(`seeded ${seeded.sessionId} with 3 reads, a test run and a long discussion: ${seeded.usage.total} tokens`);
  // The Messages API is a loopback stub: first the compaction's summary, then the chat's two model calls.
  const stub = await startMessagesApiStub([
    [{ type: "text", text: "<summary>The user asked how the report is built: report.py formats the rows that data.py loads; main.py wires them.</summary>" }],
    [
      { type: "text", text: "Let me look at data.py." },
      { type: "tool_use", id: "toolu_chat_1", name: "read_file", input: { file_path: "src/data.py" } },
    ],
    [{ type: "text", text: "data.py defines field_0 to field_119, each one strips a column." }],
  ]);
  const env = { ...process.env, PATH: `${NODE24_BIN}:${process.env.PATH}`, ANTHROPIC_BASE_URL: stub.baseUrl };
  env.ANTHROPIC_API_KEY = "test-key";
  const common = ["--user-data-dir", dirs.user, "--extensions-dir", dirs.extensions];
  check(spawnSync(CODE_SERVER, [...common, "--install-extension", VSIX], { encoding: "utf8", env }), "installing the .vsix");
  step("installed the .vsix");

  const port = await freePort();
  const codeServer = spawn(
    CODE_SERVER,
    [...common, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      "--disable-workspace-trust", "--disable-getting-started-override", dirs.workspace],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const serverLog = fs.createWriteStream(path.join(WORK, "code-server.log"));
  codeServer.stdout.pipe(serverLog);
  codeServer.stderr.pipe(serverLog);
  const stopCodeServer = () => {
    try {
      process.kill(-codeServer.pid, "SIGTERM"); // its own process group: code-server, its extension host, our server
    } catch {
      // already gone
    }
  };
  process.on("exit", stopCodeServer);
  let browser;
  let page;
  let keep = false;
  try {
    await new Promise((resolve, reject) => {
      let seen = "";
      const onData = (chunk) => {
        seen += chunk.toString();
        if (seen.includes("HTTP server listening")) {
          resolve();
        }
      };
      codeServer.stdout.on("data", onData);
      codeServer.stderr.on("data", onData);
      codeServer.once("exit", (code) => reject(new Error(`code-server exited (${code}):\n${seen}`)));
    });
    step(`code-server listening on 127.0.0.1:${port}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator(".monaco-workbench").waitFor();
    step("workbench loaded");

    const gauge = page.locator(".statusbar-item", { hasText: /\/ 200k/ });
    await gauge.waitFor();
    const before = (await gauge.innerText()).trim();
    step(`status bar before: "${before}"`);
    await page.screenshot({ path: path.join(SCREENS, "1-before.png") });

    await page.keyboard.press("F1");
    const quickInput = page.locator(".quick-input-widget input");
    await quickInput.waitFor();
    await quickInput.fill(">Compact: Compact Conversation");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Compact Conversation" }).first().waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".quick-input-widget", { hasText: "Optional instructions" }).waitFor();
    await quickInput.fill("keep how the report is built");
    await page.screenshot({ path: path.join(SCREENS, "2-instructions.png") });
    await page.keyboard.press("Enter");
    step("ran Compact: Compact Conversation… from the palette");

    const toast = page.locator(".notification-toast", { hasText: "Conversation compacted" });
    await toast.waitFor();
    const notice = (await toast.innerText()).trim().split("\n")[0];
    step(`notification: "${notice}"`);
    await page.waitForFunction(
      ([text]) => [...document.querySelectorAll(".statusbar-item")].some((e) => /\/ 200k/.test(e.textContent) && !e.textContent.includes(text)),
      [before.replace(/^\S*\s*/, "")],
    );
    const after = (await gauge.innerText()).trim();
    step(`status bar after: "${after}"`);
    await page.screenshot({ path: path.join(SCREENS, "3-compacted.png") });

    await gauge.click();
    const webview = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    const summary = webview.locator("#summary");
    await summary.waitFor();
    const view = (await summary.innerText()).trim();
    await webview.locator("h2", { hasText: "Read files" }).waitFor();
    step(`usage view: "${view}"`);
    await page.screenshot({ path: path.join(SCREENS, "4-usage-view.png") });
    if (!/\/ 200k/.test(view)) {
      throw new Error(`the usage view does not show the usage: ${view}`);
    }

    await page.keyboard.press("F1");
    await quickInput.waitFor();
    await quickInput.fill(">Compact: Open Chat");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Open Chat" }).first().waitFor();
    await page.keyboard.press("Enter");
    const chat = page.frameLocator("iframe.webview.ready >> nth=-1").frameLocator("#active-frame");
    await chat.locator("#input").fill("What is in data.py?");
    await chat.locator("#input").press("Enter");
    await chat.locator("#log", { hasText: "field_0 to field_119" }).waitFor();
    await chat.locator(".entry.tool.done", { hasText: "read_file" }).waitFor();
    const transcript = (await chat.locator("#log").innerText()).trim().replace(/\s*\n\s*/g, " | ");
    step(`chat: "${transcript.slice(0, 160)}"`);
    await page.screenshot({ path: path.join(SCREENS, "5-chat.png") });
    if (stub.requests.length !== 3) {
      throw new Error(`expected 3 Messages API calls (summary, 2 chat rounds), got ${stub.requests.length}`);
    }
    console.log(`PASS in ${((Date.now() - started) / 1000).toFixed(1)}s: ${before} → ${after}; ${notice}`);
  } catch (error) {
    keep = true;
    console.error(`kept ${dirs.run} (logs under user/logs)`);
    if (page !== undefined) {
      await page.screenshot({ path: path.join(SCREENS, "failure.png") }).catch(() => undefined);
    }
    throw error;
  } finally {
    await browser?.close();
    stopCodeServer();
    await stub.close();
    if (!keep) {
      fs.rmSync(dirs.run, { recursive: true, force: true });
    }
  }
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  console.error(`code-server log: ${path.join(WORK, "code-server.log")}; screenshots: ${SCREENS}`);
  process.exit(1);
});
