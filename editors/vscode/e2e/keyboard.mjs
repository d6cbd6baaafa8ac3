// Ctrl+Alt+A reaches the chat's input from anywhere, end to end in a real VS Code (code-server): from the Explorer
// (where Ctrl+Alt+C, the key it replaces, is VS Code's own "Copy Path of Active File") with the chat never opened
// yet, and from an editor, the keys open the chat with the focus in its input and what is typed lands there. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import * as fs from "node:fs";
import * as path from "node:path";
import {
  expect,
  inCodeServer,
  runScenario,
  screenshot,
  smallWorkspace,
  step,
  webviewFrame,
} from "./harness.mjs";

async function main() {
  const dirs = smallWorkspace("keys");
  await inCodeServer("keys", dirs, async (page) => {
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
  });
}

runScenario(main);
