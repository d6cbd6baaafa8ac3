// The working set end to end in a real VS Code (code-server), as a user meets it: Claude Code edited a file, read one
// that changed since and ran a failing test; the user opens that session, runs "Compact: Show Working Set" from the
// palette, reads the rows, clicks a file (it opens in an editor, never an Untitled document), and opens the working
// set again from the Sessions tree's context menu and from the usage view's link. Needs what run.mjs needs (e2e/setup.sh, npm run package).
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
const DOCS_IMG = path.join(REPO, "docs", "img");
const STEP_TIMEOUT = 60_000;
const SESSION = "5b0c9d4e-0000-4aaa-8bbb-1234567890ab";
const TITLE = "Fix b in src/app.py and run the tests.";

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

/** A workspace, and Claude Code's session of it: read and edit src/app.py, read notes.md, run the tests (fail). */
function prepare() {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-ws-")));
  const workspace = path.join(run, "workspace");
  const home = path.join(run, "home");
  const user = path.join(run, "user");
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  const app = path.join(workspace, "src", "app.py");
  const notes = path.join(workspace, "notes.md");
  fs.writeFileSync(app, "a = 1\nb = 3\nc = 4\n"); // the edit, as Claude Code made it
  fs.writeFileSync(notes, "# notes\nsomeone else's line\n"); // changed since Claude Code read it
  const projectDir = spawnSync(PYTHON, ["-c", "import sys; from compact_lsp.agents.claude_code.live import project_directory; print(project_directory(None, sys.argv[1]))", workspace],
    { encoding: "utf8", env: { ...process.env, HOME: home } }).stdout.trim();
  fs.mkdirSync(projectDir, { recursive: true });
  const records = [];
  let parent = null;
  const add = (type, message) => {
    const uuid = `00000000-0000-4000-8000-${String(records.length).padStart(12, "0")}`;
    records.push(JSON.stringify({ type, uuid, parentUuid: parent, sessionId: SESSION, cwd: workspace, isSidechain: false,
      timestamp: `2026-12-06T01:00:${String(records.length).padStart(2, "0")}.000Z`, message }));
    parent = uuid;
  };
  const assistant = (n, content) => add("assistant", { id: `msg_${n}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content, usage: { input_tokens: 2000, output_tokens: 5 } });
  const call = (n, name, input, result, isError) => {
    assistant(n, [{ type: "tool_use", id: `toolu_${n}`, name, input }]);
    add("user", { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: result, is_error: isError }] });
  };
  add("user", { role: "user", content: TITLE });
  call(1, "Read", { file_path: app }, "     1→a = 1\n     2→b = 2\n", false);
  call(2, "Edit", { file_path: app, old_string: "b = 2", new_string: "b = 3\nc = 4" }, "The file has been updated.", false);
  call(3, "Read", { file_path: notes }, "     1→# notes\n", false);
  call(4, "Bash", { command: "uv run pytest -q" }, "Exit code 1\nFAILED tests/test_app.py::test_b - assert 3 == 2\n1 failed", true);
  assistant(5, [{ type: "text", text: "test_b still fails." }]);
  fs.writeFileSync(path.join(projectDir, `${SESSION}.jsonl`), records.join("\n") + "\n");
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
  return { run, workspace, home, user, app, notes, extensions: path.join(run, "extensions") };
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
  const serverLog = fs.createWriteStream(path.join(WORK, "code-server-working-set.log"));
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

    // 1. Open Claude Code's session (the Sessions tree lists it once the server has read it), then the palette.
    await page.locator(".activitybar .action-item a[aria-label^='Compact']").first().click();
    const item = page.locator(".monaco-list-row", { hasText: TITLE }).first();
    await item.waitFor();
    await runCommand(page, "Open Session in Chat");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: TITLE }).first().click();
    await runCommand(page, "Show Working Set");
    const view = await webviewFrame(page, "ul.working-set");
    const text = (await view.locator("body").innerText()).replace(/[ \t]+/g, " ");
    step(`working set: ${text.split("\n").filter((line) => line.trim() !== "").slice(0, 9).join(" | ")}`);
    expect(text.includes("3 facts"), `the working set does not count 3 facts: ${text}`);
    expect(text.includes("uv run pytest -q exit 1"), `no last test with its exit status: ${text}`);
    expect(text.includes("FAILED tests/test_app.py::test_b - assert 3 == 2"), `no decisive line: ${text}`);
    expect(/src\/app\.py \+2 −1/.test(text), `no edited file with +2 −1: ${text}`);
    expect(/notes\.md now \d+ bytes/.test(text), `no stale read: ${text}`);
    const tab = page.locator(".tabs-container .tab", { hasText: "Working set" });
    expect((await tab.count()) === 1, "the working set is not one editor tab");
    expect((await page.locator(".tabs-container .tab.dirty").count()) === 0, "a tab is dirty");
    expect((await page.locator(".tabs-container .tab", { hasText: "Untitled" }).count()) === 0, "an Untitled document opened");
    await screenshot(page, "working-set");

    // 2. A click on a file opens it.
    await view.locator("a[data-row]", { hasText: "src/app.py" }).click();
    await page.locator(".tabs-container .tab.active", { hasText: "app.py" }).waitFor();
    await page.locator(".monaco-editor .view-lines", { hasText: "c = 4" }).first().waitFor();
    step("a click on src/app.py opened it in an editor");
    await screenshot(page, "working-set-opened");

    // 3. From the Sessions tree's context menu, for that session.
    await item.click({ button: "right" });
    await page.locator(".context-view .action-label", { hasText: "Show Working Set" }).first().click();
    await webviewFrame(page, "ul.working-set");
    await page.locator(".tabs-container .tab.active", { hasText: "Working set" }).waitFor();
    step("the Sessions tree's context menu shows it again");

    // 4. From the usage view of the session: its "Working set" link.
    await page.keyboard.press("Control+W");
    await runCommand(page, "Show Context Usage");
    for (let attempt = 1; ; attempt++) {
      try {
        // the usage view redraws as its first answers arrive: a frame redrawn meanwhile is looked up again
        await (await webviewFrame(page, ".working-set-link a")).locator(".working-set-link a").click({ timeout: 5000 });
        break;
      } catch (error) {
        if (attempt >= 5) {
          throw error;
        }
      }
    }
    await page.locator(".tabs-container .tab.active", { hasText: "Working set" }).waitFor();
    await webviewFrame(page, "ul.working-set");
    step("the usage view's Working set link opens it");
    if (process.argv.includes("--docs")) {
      fs.copyFileSync(path.join(SCREENS, "working-set.png"), path.join(DOCS_IMG, "vscode-working-set.png"));
    }
    console.log("PASS");
  } catch (error) {
    keep = true;
    console.error(`kept ${dirs.run} (logs under user/logs)`);
    if (page !== undefined) {
      await page.screenshot({ path: path.join(SCREENS, "working-set-failure.png") }).catch(() => undefined);
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
