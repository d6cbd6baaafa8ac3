// Resetting a setting reaches the server at once, end to end in a real VS Code (code-server): the user's own session
// (Claude Code's, imported with Import to continue) under a low automatic-compaction threshold shows the gauge at the
// threshold; removing the setting from settings.json (VS Code sends null: "the default") brings the gauge back to
// normal without a restart. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  PYTHON,
  REPO,
  expect,
  inCodeServer,
  runCommand,
  screenshot,
  step,
  webviewFrame,
  writeUserSettings,
} from "./harness.mjs";

const FIXTURE = path.join(REPO, "tests", "fixtures", "claude_code", "transcript-two-compactions.jsonl");
const LINES = fs.readFileSync(FIXTURE, "utf8").split("\n").filter((line) => line !== "").map((line) => line + "\n");
const SESSION = JSON.parse(LINES[0]).sessionId;
const TITLE = "Read the first seven modules";
const AUTO = LINES.findIndex((line) => line.includes('"compact_boundary"') && line.includes('"auto"'));
const BIG = LINES.findIndex((line) => /"input_tokens":\s*990000/.test(line));

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
  writeUserSettings(user, run, {
    "editor.stickyScroll.enabled": false,
  });
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

async function main() {
  const dirs = prepare();
  await inCodeServer("reset", dirs, async (page) => {
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
  });
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
