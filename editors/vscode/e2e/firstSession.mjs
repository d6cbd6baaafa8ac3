// A new user's first session, end to end in a real VS Code (code-server), where a user trips first: the folder is not
// trusted yet, so a Compact command says the extension is paused and how to go on (not "server not running"); a
// message sent the moment the folder is trusted, while the server still starts, is answered; Stop mid-answer says
// "Cancelled" as an outcome, keeps what was typed meanwhile and leaves the chat ready; a message half typed survives
// a window reload; an edit to a file with unsaved changes says so in the prompt, before the user allows it.
// Needs what run.mjs needs (e2e/setup.sh, npm run package, npm run build:tests for the Messages API stub).
import * as fs from "node:fs";
import * as path from "node:path";
import { compactView, expect, inCodeServer, runCommand, runFolders, runScenario, screenshot, send, shownText, step, typeUnsaved, webviewFrame, withMessagesApiStub, writeUserSettings } from "./harness.mjs";

/** A small Python project, and VS Code's settings as a desktop user has them (trust asked, no auto save). */
function prepare() {
  const dirs = runFolders("first", "shop");
  fs.mkdirSync(path.join(dirs.workspace, "src", "shop"), { recursive: true });
  fs.writeFileSync(path.join(dirs.workspace, "pyproject.toml"), '[project]\nname = "shop"\nversion = "0.1.0"\n');
  const helpers = Array.from({ length: 200 }, (_, i) => `def helper_${i}(x):\n    return x * 2 + ${i}\n`);
  fs.writeFileSync(path.join(dirs.workspace, "src", "shop", "cart.py"), ["def total(items):\n    return sum(item.price for item in items)\n", ...helpers].join("\n"));
  writeUserSettings(dirs.user, dirs.run, { "security.workspace.trust.enabled": true, "files.autoSave": "off" });
  return dirs;
}

async function main() {
  const dirs = prepare();
  const turns = [
    [{ type: "text", text: "The project is **shop**." }],
    [{ type: "tool_use", id: "toolu_read", name: "read_file", input: { file_path: "src/shop/cart.py" } }],
    { delayMs: 120_000, blocks: [{ type: "text", text: "An answer the user stopped." }] },
    [{ type: "tool_use", id: "toolu_edit", name: "edit_file", input: { file_path: "src/shop/cart.py", old_string: "def total(items):", new_string: "def cart_total(items):" } }],
    [{ type: "text", text: "Left cart.py as it is." }],
  ];
  await withMessagesApiStub(turns, async () => {
    await inCodeServer("first", dirs, async (page) => {
      // 0. Restricted Mode: a Compact command says Compact is paused and how to go on, not "not running".
      await compactView(page, ".welcome.restricted");
      await runCommand(page, "Compact Conversation");
      await page.locator(".quick-input-widget", { hasText: "Optional instructions" }).waitFor();
      await page.keyboard.press("Enter");
      const paused = page.locator(".notification-toast", { hasText: "Restricted Mode" });
      await paused.waitFor();
      const pausedText = await shownText(paused);
      expect(!/not running|Restart Server/.test(pausedText), `Restricted Mode reads as a broken server: ${pausedText}`);
      expect(pausedText.includes("Manage Workspace Trust"), `the toast does not say how to go on: ${pausedText}`);
      step(`Restricted Mode: a command says "${pausedText.replace(/^.*?Compact: /, "").slice(0, 60)}…"`);
      await screenshot(page, "first-restricted");
      await page.keyboard.press("Escape");

      // 1. Trust the folder and send at once, while the server still starts: the message waits for it and is answered.
      await runCommand(page, "Manage Workspace Trust", "Workspaces");
      await page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first().click();
      await page.keyboard.press("Control+W"); // the trust editor
      const chat = await webviewFrame(page, "#composer:not([hidden])");
      await send(chat, "What is this project?");
      await chat.locator(".entry.assistant", { hasText: "The project is shop" }).waitFor();
      const refused = page.locator(".notification-toast", { hasText: /not running/ });
      expect((await refused.count()) === 0, `the first message was refused: ${await refused.allInnerTexts()}`);
      step("sent the moment the folder was trusted: answered, no \"not running\"");

      // 2. Stop mid-answer: "Cancelled", said as an outcome; what the user typed meanwhile stays; the chat is ready again.
      await send(chat, "Summarise cart.py");
      await chat.locator(".entry.tool.done", { hasText: "read_file" }).waitFor();
      await chat.locator("#input").fill("and then the tests");
      await chat.locator("#stop").click();
      const cancelled = chat.locator(".entry.notice", { hasText: "Cancelled" });
      await cancelled.waitFor();
      expect((await chat.locator(".entry.error").count()) === 0, `the stop reads as a failure: ${await chat.locator(".entry.error").allInnerTexts()}`);
      const kept = await chat.locator("#input").inputValue();
      expect(kept === "and then the tests", `the input holds ${JSON.stringify(kept)} after the stop`);
      await chat.locator("#send:not([disabled])").waitFor();
      expect(await chat.locator("#stop").isDisabled(), "Stop is still enabled after the turn was cancelled");
      step(`stopped mid-answer: "${await shownText(cancelled)}", the typed text kept, Send ready`);
      await screenshot(page, "first-cancelled");

      // 3. Reload the window with that text still unsent: the chat comes back, and so does the text in its input.
      // the old page's webviews still show the chat until the reload navigates: wait for it, or a frame is detached
      const navigated = page.waitForEvent("framenavigated", (frame) => frame === page.mainFrame());
      await runCommand(page, "Reload Window", "Developer");
      await navigated;
      await page.locator(".monaco-workbench").waitFor();
      const reloaded = await webviewFrame(page, ".entry.user");
      await reloaded.locator(".entry.user", { hasText: "Summarise cart.py" }).waitFor();
      await reloaded.waitForFunction(() => document.getElementById("input")?.value !== "", undefined, { timeout: 10_000 }).catch(() => undefined);
      const draft = await reloaded.locator("#input").inputValue();
      expect(draft === "and then the tests", `after the reload the input holds ${JSON.stringify(draft)}`);
      await page.locator(".statusbar-item", { hasText: /\/ 200k/ }).first().waitFor();
      step("reloaded: the chat and the gauge are back, the unsent text still in the input");

      // 4. The agent asks to edit a file the user changed without saving: the prompt says so before the decision.
      await page.keyboard.press("Control+P");
      await page.locator(".quick-input-widget input").fill("cart.py");
      await page.locator(".quick-input-list .monaco-list-row", { hasText: "cart.py" }).first().waitFor();
      await page.keyboard.press("Enter");
      await typeUnsaved(page, "cart.py", "def total(items):", "# my unsaved note\n");
      await send(reloaded, "Rename total to cart_total");
      const prompt = reloaded.locator(".entry.approval.pending");
      const unsaved = prompt.locator(".unsaved");
      await unsaved.waitFor();
      const said = await shownText(unsaved);
      expect(said.startsWith("src/shop/cart.py has unsaved changes"), `the prompt says ${JSON.stringify(said)}`);
      step(`the edit prompt says: "${said.slice(0, 60)}…"`);
      await screenshot(page, "first-unsaved");
      await prompt.locator("button", { hasText: "Deny" }).click();
      await reloaded.locator(".entry.assistant", { hasText: "Left cart.py as it is" }).waitFor();
      const onDisk = fs.readFileSync(path.join(dirs.workspace, "src", "shop", "cart.py"), "utf8");
      expect(onDisk.startsWith("def total(items):"), "the denied edit changed the file");
    });
  });
}

runScenario(main);
