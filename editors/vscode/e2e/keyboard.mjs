// Ctrl+Alt+A reaches the chat's input from anywhere, end to end in a real VS Code (code-server): from the Explorer
// (where Ctrl+Alt+C, the key it replaces, is VS Code's own "Copy Path of Active File") with the chat never opened
// yet, and from an editor, the keys open the chat with the focus in its input and what is typed lands there. Needs what run.mjs needs (e2e/setup.sh, npm run package).
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

/** A workspace with one file, and VS Code's settings for a quiet first run. */
function prepare() {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-keys-")));
  const workspace = path.join(run, "workspace");
  const home = path.join(run, "home");
  const user = path.join(run, "user");
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "a.py"), "def a0():\n    return 0\n");
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
  };
  for (const scope of ["User", "Machine"]) {
    fs.mkdirSync(path.join(user, scope), { recursive: true });
    fs.writeFileSync(path.join(user, scope, "settings.json"), JSON.stringify(settings, null, 2));
  }
  return { run, workspace, home, user, extensions: path.join(run, "extensions") };
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
  const serverLog = fs.createWriteStream(path.join(WORK, "code-server-keys.log"));
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

    // 0. The extension's contributions arrive a few seconds after the workbench: wait until the palette shows the
    // command with its key (pressed earlier, the keys reach nothing yet).
    for (let attempt = 0; ; attempt++) {
      await page.keyboard.press("F1");
      await page.locator(".quick-input-widget input").fill(">Compact: Focus Chat Input");
      const listed = page.locator(".quick-input-list .monaco-list-row", { hasText: "Focus Chat Input" });
      const shown = await listed.first().waitFor({ timeout: 3000 }).then(() => true, () => false);
      const keys = shown ? (await listed.first().innerText()).replace(/\s+/g, " ") : "";
      await page.keyboard.press("Escape");
      if (shown) {
        expect(/Ctrl \+ Alt \+ A/.test(keys), `the palette shows ${JSON.stringify(keys)}, not Ctrl+Alt+A`);
        step(`the palette lists "${keys}"`);
        break;
      }
      expect(attempt < 20, "Compact: Focus Chat Input never appeared in the palette");
    }

    // 1. From the Explorer (a file selected in it): Ctrl+Alt+A, then typing, lands in the chat's input.
    await page.keyboard.press("Control+Shift+E"); // View: Show Explorer
    const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "a.py" }).first();
    await row.click();
    await page.waitForFunction(() => document.activeElement?.closest(".explorer-folders-view") !== null);
    step("the Explorer has the focus, a.py selected");
    await page.keyboard.press("Control+Alt+A");
    const chat = await webviewFrame(page, "#input");
    await chat.waitForFunction(() => document.activeElement?.id === "input" && document.hasFocus());
    await page.keyboard.type("typed after Ctrl+Alt+A in the Explorer");
    const typed = await chat.locator("#input").inputValue();
    expect(typed === "typed after Ctrl+Alt+A in the Explorer", `the chat's input has ${JSON.stringify(typed)}`);
    step("from the Explorer: Ctrl+Alt+A focused the chat's input, the typed text is in it");
    await screenshot(page, "keys-explorer");

    // 2. From an editor: the same keys, the same input (the text typed so far kept).
    await page.keyboard.press("Control+Shift+E");
    await row.dblclick();
    await page.locator(".monaco-editor .view-line", { hasText: "def a0():" }).first().click();
    await page.waitForFunction(() => document.activeElement?.closest(".monaco-editor") !== null);
    step("the editor of a.py has the focus");
    await page.keyboard.press("Control+Alt+A");
    await chat.waitForFunction(() => document.activeElement?.id === "input" && document.hasFocus());
    await page.keyboard.press("End");
    await page.keyboard.type(", and in the editor");
    const more = await chat.locator("#input").inputValue();
    expect(more === "typed after Ctrl+Alt+A in the Explorer, and in the editor", `the chat's input has ${JSON.stringify(more)}`);
    const file = fs.readFileSync(path.join(dirs.workspace, "a.py"), "utf8");
    expect(file === "def a0():\n    return 0\n", "the keys typed into the editor instead");
    step("from the editor: Ctrl+Alt+A focused the chat's input, the typed text is in it");
    console.log("PASS");
  } catch (error) {
    keep = true;
    console.error(`kept ${dirs.run} (logs under user/logs)`);
    if (page !== undefined) {
      await page.screenshot({ path: path.join(SCREENS, "keys-failure.png") }).catch(() => undefined);
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
