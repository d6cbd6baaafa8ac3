// The compaction timeline and the warning before an agent compacts, end to end in a real VS Code (code-server), as a
// user meets them: Claude Code's session (the transcript the real Claude Code wrote with our hook,
// tests/fixtures/claude_code/transcript-two-compactions.jsonl) grows to 990k of its 1M window while the user watches;
// one warning says Claude Code compacts by itself next, with what to do; the timeline shows the manual and the
// automatic compaction with the hook's receipts, read-only. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import * as fs from "node:fs";
import * as path from "node:path";
import {
  claudeCodeProject,
  dirtyOrUntitled,
  editorText,
  expect,
  inCodeServer,
  openSession,
  runFolders,
  screenshot,
  sessionRow,
  step,
  twoCompactionsTranscript,
  writeUserSettings,
} from "./harness.mjs";

const { lines: LINES, session: SESSION, title: TITLE, auto: AUTO, big: BIG } = twoCompactionsTranscript();

/** A workspace, and Claude Code's session of it up to the turn before it reaches 990k tokens. */
function prepare() {
  const dirs = runFolders("tl");
  fs.writeFileSync(path.join(dirs.workspace, "a.py"), "def a0():\n    return 0\n");
  dirs.transcript = path.join(claudeCodeProject(dirs), `${SESSION}.jsonl`);
  fs.writeFileSync(dirs.transcript, LINES.slice(0, BIG).join(""));
  writeUserSettings(dirs.user, dirs.run, { "editor.stickyScroll.enabled": false });
  return dirs;
}

async function main() {
  const dirs = prepare();
  await inCodeServer("timeline", dirs, async (page) => {
    // 1. Open Claude Code's session (the Sessions tree lists it once the server has read it).
    await sessionRow(page, TITLE);
    await openSession(page, TITLE);
    await page.locator(".statusbar-item", { hasText: /18k \/ 1M/ }).first().waitFor();
    step("Claude Code's session open: 18k / 1M in the status bar");

    // 2. Claude Code's next turn takes it to 990k of its 1M window: one warning, before it compacts by itself.
    fs.appendFileSync(dirs.transcript, LINES.slice(BIG, AUTO).join(""));
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: /compacts .*by itself/ }).first();
    await toast.waitFor();
    const warning = (await toast.innerText()).replace(/\s+/g, " ");
    step(`warning: ${warning}`);
    const said = `Claude Code compacts "${TITLE}" by itself at its next step (967k reached)`; // the session, by name
    expect(warning.includes(said), `the warning: ${warning}`);
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
    const text = await editorText(page);
    step(`timeline: ${text.split("\n").filter((line) => /^## |Hook delivered/.test(line)).join(" | ")}`);
    expect(text.includes("2 compactions by Claude Code · automatic at 967k tokens."), `the timeline's head: ${text}`);
    expect(/## Compacted \(manual\): 17\.9k → 7\.4k/.test(text), `no manual compaction: ${text}`);
    const auto = /## Compacted \(auto\): 991k → 4\.1k \(−987k\) \(fired at 991k, threshold 967k\)/;
    expect(auto.test(text), `no automatic compaction: ${text}`);
    expect(/304 characters, inline,\s+no file content\./.test(text), `no receipt of the automatic compaction: ${text}`);
    expect(/4937 characters, inline,\s+files b\.py, a\.py\./.test(text), `no receipt with its files: ${text}`);
    expect(!(await dirtyOrUntitled(page)), "a tab is dirty or Untitled");
    await screenshot(page, "timeline");
  });
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
