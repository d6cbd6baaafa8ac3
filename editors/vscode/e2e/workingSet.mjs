// The working set end to end in a real VS Code (code-server), as a user meets it: Claude Code edited a file, read one
// that changed since and ran a failing test; the user opens that session, runs "Compact: Show Working Set" from the
// palette, reads the rows, clicks a file (it opens in an editor, never an Untitled document), and opens the working
// set again from the Sessions tree's context menu and from the usage view's link. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import * as fs from "node:fs";
import * as path from "node:path";
import {
  claudeCodeProject,
  dirtyOrUntitled,
  expect,
  inCodeServer,
  openSession,
  runCommand,
  runFolders,
  runScenario,
  screenshot,
  sessionRow,
  step,
  webviewClick,
  webviewFrame,
  writeUserSettings,
} from "./harness.mjs";

const SESSION = "5b0c9d4e-0000-4aaa-8bbb-1234567890ab";
const TITLE = "Fix b in src/app.py and run the tests.";

/** A workspace, and Claude Code's session of it: read and edit src/app.py, read notes.md, run the tests (fail). */
function prepare() {
  const dirs = runFolders("ws");
  const workspace = dirs.workspace;
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  const app = path.join(workspace, "src", "app.py");
  const notes = path.join(workspace, "notes.md");
  fs.writeFileSync(app, "a = 1\nb = 3\nc = 4\n"); // the edit, as Claude Code made it
  fs.writeFileSync(notes, "# notes\nsomeone else's line\n"); // changed since Claude Code read it
  const projectDir = claudeCodeProject(dirs);
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
  writeUserSettings(dirs.user, dirs.run);
  return { ...dirs, app, notes };
}

async function main() {
  const dirs = prepare();
  await inCodeServer("working-set", dirs, async (page) => {
    // 1. Open Claude Code's session (the Sessions tree lists it once the server has read it), then the palette.
    const item = await sessionRow(page, TITLE);
    await openSession(page, TITLE);
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
    expect(!(await dirtyOrUntitled(page)), "a tab is dirty or Untitled");
    await screenshot(page, "working-set", "vscode-working-set.png");

    // 2. A click on a file opens it.
    await webviewClick(page, "a[data-row]", "src/app.py");
    await page.locator(".tabs-container .tab.active", { hasText: "app.py" }).waitFor();
    await page.locator(".monaco-editor .view-lines", { hasText: "c = 4" }).first().waitFor();
    step("a click on src/app.py opened it in an editor");
    await screenshot(page, "working-set-opened");

    // 3. From the Sessions tree's context menu, for that session.
    await item.click({ button: "right" });
    await page.locator(".context-view .action-label", { hasText: "Show Working Set" }).first().click();
    // a click while the menu still settles can leave it open with the entry selected: Enter runs it then
    const menuLeft = await page.locator(".context-view .action-label").first().waitFor({ state: "hidden", timeout: 2000 }).then(() => true, () => false);
    if (!menuLeft) {
      await page.keyboard.press("Enter");
    }
    await webviewFrame(page, "ul.working-set");
    await page.locator(".tabs-container .tab.active", { hasText: "Working set" }).waitFor();
    step("the Sessions tree's context menu shows it again");

    // 4. From the usage view of the session: its "Working set" link.
    await page.keyboard.press("Control+W");
    await runCommand(page, "Show Context Usage");
    await webviewClick(page, ".working-set-link a"); // the usage view redraws as its first answers arrive
    await page.locator(".tabs-container .tab.active", { hasText: "Working set" }).waitFor();
    await webviewFrame(page, "ul.working-set");
    step("the usage view's Working set link opens it");
  });
}

runScenario(main);
