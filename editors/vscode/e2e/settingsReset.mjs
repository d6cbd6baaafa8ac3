// Resetting a setting reaches the server at once, end to end in a real VS Code (code-server): the user's own session
// (Claude Code's, imported with Import to continue) under a low automatic-compaction threshold shows the gauge at the
// threshold; removing the setting from settings.json (VS Code sends null: "the default") brings the gauge back to
// normal without a restart. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import * as fs from "node:fs";
import * as path from "node:path";
import {
  claudeCodeProject,
  expect,
  inCodeServer,
  openSession,
  runFolders,
  runScenario,
  screenshot,
  sessionRow,
  step,
  twoCompactionsTranscript,
  webviewFrame,
  writeUserSettings,
} from "./harness.mjs";

const { lines: LINES, session: SESSION, title: TITLE } = twoCompactionsTranscript();

/** A workspace, and Claude Code's whole session of it (two compactions). */
function prepare() {
  const dirs = runFolders("reset");
  fs.writeFileSync(path.join(dirs.workspace, "a.py"), "def a0():\n    return 0\n");
  dirs.transcript = path.join(claudeCodeProject(dirs), `${SESSION}.jsonl`);
  fs.writeFileSync(dirs.transcript, LINES.join(""));
  dirs.changeSettings = writeUserSettings(dirs.user, dirs.run, { "editor.stickyScroll.enabled": false });
  return dirs;
}

async function main() {
  const dirs = prepare();
  await inCodeServer("reset", dirs, async (page) => {
    // 1. Claude Code's session, imported as the user's own copy (the gauge is then ours: our threshold counts).
    await sessionRow(page, TITLE);
    await openSession(page, TITLE);
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

runScenario(main);
