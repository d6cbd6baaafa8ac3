// What the code-server scenarios share (run.mjs has its own day of use; keyboard.mjs, settingsReset.mjs,
// timeline.mjs and workingSet.mjs are one scenario each): where code-server, the .vsix and Chromium are, the user
// settings every scenario starts from, the palette, webview and chat helpers, the Messages API stub around a scenario,
// `runScenario` (FAIL and exit 1 on a failure), and `inCodeServer`, which installs the .vsix, starts code-server on a
// free port with the workspace, opens the workbench in Chromium, runs the scenario, keeps the run's folder and a
// screenshot when it fails, and stops everything. Needs e2e/setup.sh and `npm run package`.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXTENSION = path.resolve(here, "..");
export const REPO = path.resolve(EXTENSION, "..", "..");
export const WORK = path.join(here, ".work");
export const PYTHON = process.env.COMPACT_LSP_PYTHON ?? path.join(REPO, ".venv", "bin", "python");
const NODE24_BIN = path.join(WORK, "node24", "node_modules", "node", "bin");
const CODE_SERVER = path.join(WORK, "cs", "node_modules", ".bin", "code-server");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const VSIX = path.join(EXTENSION, "compact-lsp.vsix");
export const SCREENS = path.join(WORK, "screens");
export const DOCS_IMG = path.join(REPO, "docs", "img");
export const STEP_TIMEOUT = 60_000;

const { chromium } = createRequire(path.join(WORK, "pw", "package.json"))("playwright-core");

const started = Date.now();

export function step(message) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

export function expect(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The frame of the webview that has `selector` (webviews are nested iframes). */
export async function webviewFrame(page, selector, timeout = STEP_TIMEOUT) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (frame !== page.mainFrame()) {
        const count = await Promise.race([
          frame.locator(selector).count().catch(() => 0),
          new Promise((resolve) => setTimeout(() => resolve(0), 500)),
        ]);
        if (count > 0) {
          return frame;
        }
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview shows ${selector}`);
}

/** The text of `selector` in whichever webview shows it; a webview redrawn meanwhile is looked up again. */
export async function webviewText(page, selector) {
  for (let attempt = 0; ; attempt++) {
    const frame = await webviewFrame(page, selector);
    try {
      return (await frame.locator(selector).first().innerText({ timeout: 5000 })).trim();
    } catch (error) {
      if (attempt >= 5) {
        throw error;
      }
    }
  }
}

/** Clicks `selector` (with `hasText`, if given) in whichever webview shows it; a webview redrawn meanwhile (its frame
 * detached as its first answers arrive) is looked up again. */
export async function webviewClick(page, selector, hasText) {
  for (let attempt = 0; ; attempt++) {
    const frame = await webviewFrame(page, selector);
    try {
      await frame.locator(selector, hasText === undefined ? {} : { hasText }).first().click({ timeout: 5000 });
      return;
    } catch (error) {
      if (attempt >= 5) {
        throw error;
      }
    }
  }
}

/** Runs `category: title` from the palette (`category` null: a command without one, such as Open Link). */
export async function runCommand(page, title, category = "Compact") {
  const quickInput = page.locator(".quick-input-widget input");
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    try {
      await quickInput.waitFor({ timeout: 5000 });
    } catch {
      // the focus is in a webview or nowhere: open the palette from the title bar's command center instead
      await page.locator(".part.titlebar .command-center").first().click();
      await quickInput.waitFor();
    }
    try {
      await quickInput.fill(category === null ? `>${title}` : `>${category}: ${title}`, { timeout: 5000 });
      break;
    } catch (error) {
      // The palette closed before it was typed into: the focus moved (a view or the workbench taking it as it
      // settles, slow on a loaded machine). A user opens it again; so do we, twice, with a picture of why.
      if (attempt >= 3) {
        throw error;
      }
      await screenshot(page, `palette-closed-${title.replace(/\W+/g, "-")}-${attempt}`);
      step(`the palette closed before "${title}" was typed (${error.message.split("\n")[0]}): opened again`);
      await page.keyboard.press("Escape");
    }
  }
  // the row itself, not Enter: Enter may run the row still focused from before the list was filtered
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().click();
}

/** Screenshots the `--docs` run copies into docs/img once the scenario passed: [file, name in docs/img]. */
const docsShots = [];

/** A screenshot in e2e/.work/screens; with `docsName`, one the READMEs show (`--docs` copies it to docs/img). */
export async function screenshot(page, name, docsName) {
  const file = path.join(SCREENS, `${name}.png`);
  await page.screenshot({ path: file });
  if (docsName !== undefined) {
    docsShots.push([file, docsName]);
  }
}

/** Widens the side bar as a user would (drags its edge by `by` pixels), so what it shows reads in a screenshot. */
export async function widenSideBar(page, by = 150) {
  const sidebar = await page.locator(".part.sidebar").boundingBox();
  if (sidebar !== null) {
    const edge = sidebar.x + sidebar.width + 1;
    await page.mouse.move(edge, sidebar.y + 300);
    await page.mouse.down();
    await page.mouse.move(edge + by, sidebar.y + 300, { steps: 5 });
    await page.mouse.up();
  }
}

/** Polls `probe` until it gives the same value twice 150 ms apart (what the page shows has settled). */
async function settled(page, probe) {
  let before = await probe();
  for (let i = 0; i < 100; i++) {
    await page.waitForTimeout(150);
    const now = await probe();
    if (now === before) {
      return now;
    }
    before = now;
  }
  return before;
}

/** The lines of the active editor, top to bottom, page by page (the editor draws only the lines in view). */
export async function editorText(page) {
  const editor = page.locator(".editor-group-container .monaco-editor").first();
  const lines = editor.locator(".view-lines");
  const numbers = async () => (await editor.locator(".line-numbers").allInnerTexts()).map((n) => Number(n.trim())).filter((n) => n > 0);
  await lines.click({ position: { x: 5, y: 5 } }); // line 1's start: never on a link
  await page.keyboard.press("Control+End");
  const last = await settled(page, async () => Math.max(0, ...(await numbers())));
  await page.keyboard.press("Control+Home");
  for (let wait = 0; wait < 100 && Math.min(...(await numbers())) !== 1; wait++) {
    await page.waitForTimeout(100);
  }
  const pages = [];
  for (let i = 0; i < 100; i++) {
    const top = await settled(page, async () => Math.min(...(await numbers())));
    // the editor reuses its line elements: read them in the order they stand on the screen, not in the DOM's
    const text = () => lines.evaluate((element) => [...element.children].sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).map((line) => line.innerText).join("\n"));
    pages.push((await settled(page, text)).replace(/\u00a0/g, " "));
    if (Math.max(...(await numbers())) >= last) {
      return pages.join("\n");
    }
    await page.keyboard.press("PageDown");
    for (let wait = 0; wait < 100 && Math.min(...(await numbers())) === top; wait++) {
      await page.waitForTimeout(100); // the editor scrolls, then draws the lines now in view
    }
  }
  throw new Error(`the editor did not reach its line ${last}`);
}

/** Whether any editor tab is dirty or Untitled (a read-only document must be neither). */
export async function dirtyOrUntitled(page) {
  return (await page.locator(".tabs-container .tab.dirty").count()) + (await page.locator(".tabs-container .tab", { hasText: "Untitled" }).count()) > 0;
}

/**
 * A separate server on stdio in `workspace`, as any agent's client starts one: `request(method, params)`,
 * `command(name, argument)` (workspace/executeCommand) and `close()`. What it stores lands in
 * `initializationOptions.sessionDir`, where the server that VS Code starts finds it.
 */
export async function protocolClient(workspace, initializationOptions, env = process.env) {
  const rpc = createRequire(path.join(EXTENSION, "package.json"))("vscode-jsonrpc/node");
  const child = spawn(PYTHON, ["-m", "compact_lsp", "--stdio"], { cwd: workspace, env, stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  connection.onRequest(() => null);
  connection.listen();
  const rootUri = pathToFileURL(workspace).href;
  await connection.sendRequest("initialize", {
    processId: process.pid, rootUri, workspaceFolders: [{ uri: rootUri, name: "workspace" }], capabilities: {}, initializationOptions,
  });
  await connection.sendNotification("initialized", {});
  return {
    request: (method, params) => connection.sendRequest(method, params),
    command: (name, argument) => connection.sendRequest("workspace/executeCommand", { command: name, arguments: [argument] }),
    close: async () => {
      await connection.sendRequest("shutdown");
      await connection.sendNotification("exit");
      await new Promise((resolve) => child.once("exit", resolve));
      connection.dispose();
    },
  };
}

/**
 * The user settings every scenario starts from, with `extra`, written for the User and Machine scopes of `user`
 * (code-server is a remote window: machine-scoped settings such as the server's path are read from Machine/). Returns
 * how to change them later, as a user editing settings.json would (a value `undefined` removes the key, as Reset
 * Setting does).
 */
export function writeUserSettings(user, run, extra = {}) {
  const settings = {
    "compactLsp.sessionDir": path.join(run, "sessions"),
    "compactLsp.sessionMemory.enabled": false,
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "workbench.tips.enabled": false,
    "chat.disableAIFeatures": true,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    ...extra,
  };
  const write = () => {
    for (const scope of ["User", "Machine"]) {
      fs.mkdirSync(path.join(user, scope), { recursive: true });
      fs.writeFileSync(path.join(user, scope, "settings.json"), JSON.stringify(settings, null, 2));
    }
  };
  write();
  return (changes) => {
    Object.assign(settings, changes);
    write();
  };
}

/** A fresh run folder (`compact-e2e-<prefix>-…`) with the workspace (`<run>/<folder>`) made, and where HOME, VS
 * Code's user data, the session store and the extensions go: the `dirs` of `inCodeServer`. */
export function runFolders(prefix, folder = "workspace") {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `compact-e2e-${prefix}-`)));
  const dirs = { run, workspace: path.join(run, folder), home: path.join(run, "home"), user: path.join(run, "user"),
    sessions: path.join(run, "sessions"), extensions: path.join(run, "extensions") };
  fs.mkdirSync(dirs.workspace, { recursive: true });
  return dirs;
}

/** `runFolders(prefix)` with one small module, a.py, in the workspace, and the user settings with `extra` (or with what
 * `extra(dirs)` gives, for settings that name a file of the run). */
export function smallWorkspace(prefix, extra = {}) {
  const dirs = runFolders(prefix);
  fs.writeFileSync(path.join(dirs.workspace, "a.py"), "def a0():\n    return 0\n");
  writeUserSettings(dirs.user, dirs.run, typeof extra === "function" ? extra(dirs) : extra);
  return dirs;
}

/** What `python -m compact_lsp` writes to stderr as it dies without its libraries (a broken install). */
export const BROKEN_INSTALL = "echo 'Traceback (most recent call last):' >&2\necho \"ModuleNotFoundError: No module named 'pygls'\" >&2\nexit 1\n";

/** `smallWorkspace(prefix)` whose `compactLsp.server.command` is a shell script of the run, `<run>/<name>`, with `body`
 * (or what `body(dirs)` gives): a server that fails as a user's would. */
export function workspaceWithServer(prefix, name, body) {
  return smallWorkspace(prefix, (dirs) => {
    const server = path.join(dirs.run, name);
    fs.writeFileSync(server, `#!/bin/sh\n${typeof body === "function" ? body(dirs) : body}`, { mode: 0o755 });
    return { "compactLsp.server.command": server };
  });
}

/** Claude Code's project folder of `dirs.workspace` under `dirs.home` (`~/.claude/projects/<project>`), made. */
export function claudeCodeProject(dirs) {
  const script = "import sys; from compact_lsp.agents.claude_code.live import project_directory; print(project_directory(None, sys.argv[1]))";
  const found = spawnSync(PYTHON, ["-c", script, dirs.workspace], { encoding: "utf8", env: { ...process.env, HOME: dirs.home } });
  expect(found.status === 0, `finding Claude Code's project folder failed:\n${found.stderr}`);
  const directory = found.stdout.trim();
  fs.mkdirSync(directory, { recursive: true });
  return directory;
}

/** The transcript the real Claude Code wrote with our hook (tests/fixtures/claude_code/transcript-two-compactions.jsonl):
 * its lines, its session and title, and the lines where its 990k turn and its automatic compaction begin. */
export function twoCompactionsTranscript() {
  const lines = fs.readFileSync(path.join(REPO, "tests", "fixtures", "claude_code", "transcript-two-compactions.jsonl"), "utf8")
    .split("\n").filter((line) => line !== "").map((line) => line + "\n");
  return {
    lines,
    session: JSON.parse(lines[0]).sessionId,
    title: "Read the first seven modules",
    big: lines.findIndex((line) => /"input_tokens":\s*990000/.test(line)),
    auto: lines.findIndex((line) => line.includes('"compact_boundary"') && line.includes('"auto"')),
  };
}

/** Opens the Compact side bar from the activity bar. */
async function openSideBar(page) {
  await page.locator(".activitybar .action-item a[aria-label^='Compact']").first().click();
}

/** Opens the Compact side bar; the frame of its webview once it shows `selector` (the chat's welcome, say). */
export async function compactView(page, selector) {
  await openSideBar(page);
  return webviewFrame(page, selector);
}

/** Types `message` into the chat's input (`chat`: its frame) and sends it with Enter, as a user does. */
export async function send(chat, message) {
  await chat.locator("#input").fill(message);
  await chat.locator("#input").press("Enter");
}

/** What `locator` shows as a user reads it: its white space run together. */
export async function shownText(locator) {
  return (await locator.innerText()).replace(/\s+/g, " ").trim();
}

/** Types `typed` at the top of the open editor of `file` (a click on its line showing `line` first), a change of the
 * user's own, left unsaved; returns once the tab says so. */
export async function typeUnsaved(page, file, line, typed) {
  await page.locator(".editor-instance .monaco-editor .view-line", { hasText: line }).first().click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type(typed);
  await page.locator(".tab.dirty", { hasText: file }).waitFor();
}

/** Opens the Compact side bar; its Sessions row titled `title`, once the server has read that session. */
export async function sessionRow(page, title) {
  await openSideBar(page);
  const row = page.locator(".monaco-list-row", { hasText: title }).first();
  await row.waitFor();
  return row;
}

/** Opens a listed session in the chat, as a user would: Open Session in Chat, then its row in the picker. */
export async function openSession(page, title) {
  await runCommand(page, "Open Session in Chat");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().click();
}

/**
 * Run `scenario(page)` in code-server opened on `dirs.workspace` (`dirs`: run, workspace, home, user, extensions),
 * with no compact-lsp on PATH: the .vsix's own server, and `env` besides HOME (the Messages API stub's address, say).
 * `name` names its log and its failure screenshot. Prints PASS when the scenario returns (with `--docs`, then copies
 * the screenshots the READMEs show into docs/img); on a failure keeps `dirs.run` and a screenshot, and throws.
 */
export async function inCodeServer(name, dirs, scenario, env = {}) {
  for (const [what, file] of [["code-server (run e2e/setup.sh)", CODE_SERVER], ["the .vsix (npm run package)", VSIX], ["chromium", CHROMIUM], ["the server's Python", PYTHON]]) {
    if (!fs.existsSync(file)) {
      throw new Error(`missing ${what}: ${file}`);
    }
  }
  fs.mkdirSync(SCREENS, { recursive: true });
  step(`workspace ${dirs.workspace}`);
  const withoutServer = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "" && !fs.existsSync(path.join(dir, "compact-lsp")));
  const environment = { ...process.env, ...env, PATH: [NODE24_BIN, ...withoutServer].join(path.delimiter), HOME: dirs.home };
  const common = ["--user-data-dir", dirs.user, "--extensions-dir", dirs.extensions];
  const installed = spawnSync(CODE_SERVER, [...common, "--install-extension", VSIX], { encoding: "utf8", env: environment });
  expect(installed.status === 0, `installing the .vsix failed:\n${installed.stdout}\n${installed.stderr}`);
  const port = await freePort();
  const codeServer = spawn(
    CODE_SERVER,
    [...common, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      "--disable-getting-started-override", dirs.workspace],
    { env: environment, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const serverLog = fs.createWriteStream(path.join(WORK, `code-server-${name}.log`));
  codeServer.stdout.pipe(serverLog, { end: false });
  codeServer.stderr.pipe(serverLog, { end: false });
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
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.locator(".monaco-workbench").waitFor();
    step("workbench loaded");
    await scenario(page);
    console.log("PASS");
    if (process.argv.includes("--docs")) {
      fs.mkdirSync(DOCS_IMG, { recursive: true });
      for (const [file, docsName] of docsShots) {
        fs.copyFileSync(file, path.join(DOCS_IMG, docsName));
      }
      console.log(`copied ${docsShots.length} screenshots to ${DOCS_IMG}`);
    }
  } catch (error) {
    keep = true;
    console.error(`kept ${dirs.run} (logs under user/logs)`);
    if (page !== undefined) {
      await page.screenshot({ path: path.join(SCREENS, `${name}-failure.png`) }).catch(() => undefined);
    }
    throw error;
  } finally {
    await browser?.close();
    stopCodeServer();
    if (!keep) {
      fs.rmSync(dirs.run, { recursive: true, force: true });
    }
  }
}

/**
 * Runs `body(stub)` with the Messages API stub on loopback (src/test/messagesApiStub.ts, built by `npm run
 * build:tests`) answering `turns` in order, where code-server, its extension host and our server find it: in
 * ANTHROPIC_BASE_URL, with ANTHROPIC_API_KEY `apiKey` (null: none, as on a new user's machine). Then checks that the
 * stub refused nothing (what the real API would refuse) and stops it.
 */
export async function withMessagesApiStub(turns, body, apiKey = "test-key") {
  const { startMessagesApiStub } = createRequire(import.meta.url)("../out/test/messagesApiStub.js");
  const stub = await startMessagesApiStub(turns);
  process.env.ANTHROPIC_BASE_URL = stub.baseUrl; // code-server, its extension host and our server inherit these
  if (apiKey === null) {
    delete process.env.ANTHROPIC_API_KEY;
  } else {
    process.env.ANTHROPIC_API_KEY = apiKey;
  }
  try {
    await body(stub);
  } finally {
    expect(stub.refused.length === 0, `the Messages API stub refused requests:\n${stub.refused.join("\n")}`);
    await stub.close();
  }
}

/** Runs a scenario's `main`; a failure prints FAIL with its stack and exits 1. */
export function runScenario(main) {
  main().catch((error) => {
    console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  });
}
