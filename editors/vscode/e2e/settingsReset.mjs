// Resetting a setting reaches the server at once, end to end in a real VS Code (code-server): the user's own session
// (Claude Code's, imported with Import to continue) under a low automatic-compaction threshold shows the gauge at the
// threshold; removing the setting from settings.json (VS Code sends null: "the default") brings the gauge back to
// normal without a restart. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

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
const FIXTURE = path.join(REPO, "tests", "fixtures", "claude_code", "transcript-two-compactions.jsonl");
const LINES = fs.readFileSync(FIXTURE, "utf8").split("\n").filter((line) => line !== "").map((line) => line + "\n");
const SESSION = JSON.parse(LINES[0]).sessionId;
const TITLE = "Read the first seven modules";
const AUTO = LINES.findIndex((line) => line.includes('"compact_boundary"') && line.includes('"auto"'));
const BIG = LINES.findIndex((line) => /"input_tokens":\s*990000/.test(line));

const { chromium } = createRequire(path.join(WORK, "pw", "package.json"))("playwright-core");

const started = Date.now();
function step(message) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function expect(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
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

/** A workspace, and Claude Code's session of it up to the turn before it reaches 990k tokens. */
function prepare() {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-reset-")));
  const workspace = path.join(run, "workspace");
  const home = path.join(run, "home");
  const user = path.join(run, "user");
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "a.py"), "def a0():\n    return 0\n");
  const projectDir = spawnSync(PYTHON, ["-c", "import sys; from compact_lsp.agents.claude_code.live import project_directory; print(project_directory(None, sys.argv[1]))", workspace],
    { encoding: "utf8", env: { ...process.env, HOME: home } }).stdout.trim();
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, LINES.join(""));
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
    "editor.stickyScroll.enabled": false,
  };
  for (const scope of ["User", "Machine"]) {
    fs.mkdirSync(path.join(user, scope), { recursive: true });
    fs.writeFileSync(path.join(user, scope, "settings.json"), JSON.stringify(settings, null, 2));
  }
  const changeSettings = (changes) => {
    for (const scope of ["User", "Machine"]) { // code-server reads both; run.mjs changes both too
      const file = path.join(user, scope, "settings.json");
      const now = { ...JSON.parse(fs.readFileSync(file, "utf8")), ...changes };
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) {
          delete now[key]; // removed from the file, as "Reset Setting" does
        }
      }
      fs.writeFileSync(file, JSON.stringify(now, null, 2));
    }
  };
  return { run, workspace, home, user, transcript, changeSettings, extensions: path.join(run, "extensions") };
}

/** The frame of the webview that has `selector` (webviews are nested iframes). */
async function webviewFrame(page, selector, timeout = STEP_TIMEOUT) {
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

async function runCommand(page, title, category = "Compact") {
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
      await quickInput.fill(`>${category}: ${title}`, { timeout: 5000 });
      break;
    } catch (error) {
      // the palette closed before it was typed into (a view took the focus as it settled): open it again
      if (attempt >= 3) {
        throw error;
      }
      step(`the palette closed before "${title}" was typed: opened again`);
      await page.keyboard.press("Escape");
    }
  }
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await page.keyboard.press("Enter");
}

async function screenshot(page, name) {
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`) });
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
  const withoutServer = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "" && !fs.existsSync(path.join(dir, "compact-lsp")));
  const env = { ...process.env, PATH: [NODE24_BIN, ...withoutServer].join(path.delimiter), HOME: dirs.home };
  const common = ["--user-data-dir", dirs.user, "--extensions-dir", dirs.extensions];
  const installed = spawnSync(CODE_SERVER, [...common, "--install-extension", VSIX], { encoding: "utf8", env });
  expect(installed.status === 0, `installing the .vsix failed:\n${installed.stdout}\n${installed.stderr}`);
  const port = await freePort();
  const codeServer = spawn(
    CODE_SERVER,
    [...common, "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      "--disable-getting-started-override", dirs.workspace],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const serverLog = fs.createWriteStream(path.join(WORK, "code-server-reset.log"));
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

    // 1. Claude Code's session, imported as the user's own copy (the gauge is then ours: our threshold counts).
    await page.locator(".activitybar .action-item a[aria-label^='Compact']").first().click();
    await page.locator(".monaco-list-row", { hasText: TITLE }).first().waitFor();
    await runCommand(page, "Open Session in Chat");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: TITLE }).first().click();
    const chat = await webviewFrame(page, "button:has-text('Import to continue')");
    await chat.locator("button", { hasText: "Import to continue" }).click();
    const gauge = page.locator(".statusbar-item", { hasText: /\/ 200k/ }).first();
    await gauge.waitFor();
    const kind = async () => (await gauge.getAttribute("class")) ?? "";
    step(`our copy: ${(await gauge.innerText()).trim()} (${(await kind()).includes("warning-kind") ? "warning" : "normal"})`);
    expect(!(await kind()).includes("warning-kind"), "the gauge warns before any threshold was set");

    // 2. A low threshold: the gauge is at it.
    dirs.changeSettings({ "compactLsp.autoCompact.threshold": 10 });
    await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((e) => /\/ 200k/.test(e.textContent ?? "") && e.classList.contains("warning-kind")));
    step("threshold 10 in settings.json: the gauge is at the threshold");
    await screenshot(page, "reset-low");

    // 3. Removed from settings.json: the default again, at once, without a restart.
    dirs.changeSettings({ "compactLsp.autoCompact.threshold": undefined });
    await page.waitForFunction(() => [...document.querySelectorAll(".statusbar-item")].some((e) => /\/ 200k/.test(e.textContent ?? "") && !e.classList.contains("warning-kind")));
    step("the setting removed: the gauge is back to normal, no restart");
    await screenshot(page, "reset-default");
    console.log("PASS");
  } catch (error) {
    keep = true;
    console.error(`kept ${dirs.run} (logs under user/logs)`);
    if (page !== undefined) {
      await page.screenshot({ path: path.join(SCREENS, "reset-failure.png") }).catch(() => undefined);
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

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
