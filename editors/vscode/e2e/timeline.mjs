// The compaction timeline and the warning before an agent compacts, end to end in a real VS Code (code-server), as a
// user meets them: Claude Code's session (the transcript the real Claude Code wrote with our hook,
// tests/fixtures/claude_code/transcript-two-compactions.jsonl) grows to 990k of its 1M window while the user watches;
// one warning says Claude Code compacts by itself next, with what to do; the timeline shows the manual and the
// automatic compaction with the hook's receipts, read-only. Needs what run.mjs needs (e2e/setup.sh, npm run package).
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
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-tl-")));
  const workspace = path.join(run, "workspace");
  const home = path.join(run, "home");
  const user = path.join(run, "user");
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "a.py"), "def a0():\n    return 0\n");
  const projectDir = spawnSync(PYTHON, ["-c", "import sys; from compact_lsp.agents.claude_code.live import project_directory; print(project_directory(None, sys.argv[1]))", workspace],
    { encoding: "utf8", env: { ...process.env, HOME: home } }).stdout.trim();
  fs.mkdirSync(projectDir, { recursive: true });
  const transcript = path.join(projectDir, `${SESSION}.jsonl`);
  fs.writeFileSync(transcript, LINES.slice(0, BIG).join(""));
  writeUserSettings(user, run, {
    "editor.stickyScroll.enabled": false,
  });
  return { run, workspace, home, user, transcript, extensions: path.join(run, "extensions") };
}

async function main() {
  const dirs = prepare();
  await inCodeServer("timeline", dirs, async (page) => {
    // 1. Open Claude Code's session (the Sessions tree lists it once the server has read it).
    await page.locator(".activitybar .action-item a[aria-label^='Compact']").first().click();
    const item = page.locator(".monaco-list-row", { hasText: TITLE }).first();
    await item.waitFor();
    await runCommand(page, "Open Session in Chat");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: TITLE }).first().click();
    await page.locator(".statusbar-item", { hasText: /18k \/ 1M/ }).first().waitFor();
    step("Claude Code's session open: 18k / 1M in the status bar");

    // 2. Claude Code's next turn takes it to 990k of its 1M window: one warning, before it compacts by itself.
    fs.appendFileSync(dirs.transcript, LINES.slice(BIG, AUTO).join(""));
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "compacts by itself" }).first();
    await toast.waitFor();
    const warning = (await toast.innerText()).replace(/\s+/g, " ");
    step(`warning: ${warning}`);
    expect(warning.includes("Claude Code compacts by itself at its next step (967k reached)"), `the warning: ${warning}`);
    expect(warning.includes("/compact with a focus in Claude Code"), `the warning has no way forward: ${warning}`);
    for (const action of ["Pin a File…", "Show Timeline", "Let It Run"]) {
      expect(warning.includes(action), `no ${action} button: ${warning}`);
    }
    await screenshot(page, "warning");

    // 3. Claude Code compacts by itself and goes on; the timeline shows both compactions with the hook's receipts.
    fs.appendFileSync(dirs.transcript, LINES.slice(AUTO).join(""));
    await page.waitForFunction(() => ![...document.querySelectorAll(".statusbar-item")].some((e) => /990(\.\d)?k \//.test(e.textContent ?? "")));
    await toast.locator(".monaco-button", { hasText: "Show Timeline" }).click();
    await page.locator(".monaco-editor .view-line", { hasText: "Compaction timeline" }).first().waitFor();
    await page.locator(".monaco-editor .view-line", { hasText: "2 compactions by Claude Code" }).first().waitFor();
    const lines = page.locator(".editor-group-container .monaco-editor .view-lines").first();
    const top = (await lines.innerText()).replace(/\u00a0/g, " ");
    await lines.click();
    await page.keyboard.press("Control+End"); // the editor draws the lines in view only: read the end too
    await page.locator(".monaco-editor .view-line", { hasText: /304.characters/ }).first().waitFor();
    const pages = [top];
    for (let i = 0; i < 5; i++) {
      pages.push((await lines.innerText()).replace(/\u00a0/g, " "));
      await page.keyboard.press("PageUp");
      await page.waitForTimeout(300); // the editor redraws the lines now in view
    }
    const text = pages.join("\n");
    step(`timeline: ${text.split("\n").filter((line) => /^## |Hook delivered/.test(line)).join(" | ")}`);
    expect(text.includes("2 compactions by Claude Code · automatic at 967k tokens."), `the timeline's head: ${text}`);
    expect(/## Compacted \(manual\): 17\.9k → 7\.4k/.test(text), `no manual compaction: ${text}`);
    const auto = /## Compacted \(auto\): 991k → 4\.1k \(−987k\) \(fired at 991k, threshold 967k\)/;
    expect(auto.test(text), `no automatic compaction: ${text}`);
    expect(/304 characters, inline,\s+no file content\./.test(text), `no receipt of the automatic compaction: ${text}`);
    expect(/4937 characters, inline,\s+files b\.py, a\.py\./.test(text), `no receipt with its files: ${text}`);
    expect((await page.locator(".tabs-container .tab.dirty").count()) === 0, "a tab is dirty");
    expect((await page.locator(".tabs-container .tab", { hasText: "Untitled" }).count()) === 0, "an Untitled document opened");
    await screenshot(page, "timeline");
  });
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
