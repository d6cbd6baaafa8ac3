// No API key, end to end in a real VS Code (code-server): a new user without ANTHROPIC_API_KEY sends a first message.
// The chat says in VS Code's words what to do (Set API Key; no environment variable, no "language server") with the
// button beside it, and the message is back in the input, ready to send once a key is set. Needs what run.mjs needs
// (e2e/setup.sh, npm run package, npm run build:tests for the Messages API stub).
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { expect, inCodeServer, screenshot, step, webviewFrame, writeUserSettings } from "./harness.mjs";

const { startMessagesApiStub } = createRequire(import.meta.url)("../out/test/messagesApiStub.js");

function prepare() {
  const run = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "compact-e2e-nokey-")));
  const workspace = path.join(run, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, "a.py"), "def a0():\n    return 0\n");
  const user = path.join(run, "user");
  writeUserSettings(user, run);
  return { run, workspace, home: path.join(run, "home"), user, extensions: path.join(run, "extensions") };
}

async function main() {
  const dirs = prepare();
  const stub = await startMessagesApiStub([[{ type: "text", text: "never asked: there is no key" }]]);
  process.env.ANTHROPIC_BASE_URL = stub.baseUrl;
  delete process.env.ANTHROPIC_API_KEY; // a new user's machine
  try {
    await inCodeServer("no-key", dirs, async (page) => {
      await page.locator(".activitybar .action-item a[aria-label^='Compact']").first().click();
      const chat = await webviewFrame(page, ".welcome h2"); // drawn once the chat's script runs: keys reach it
      await chat.locator("#input").fill("What does a.py do?");
      await chat.locator("#input").press("Enter");
      const said = chat.locator(".entry.error", { hasText: "API key" });
      await said.waitFor();
      const text = (await said.innerText()).replace(/\s+/g, " ").trim();
      expect(text.includes("Set API Key stores one for Compact; then send your message again."), `the chat says: ${text}`);
      expect(!/ANTHROPIC_API_KEY|language server/.test(text), `the chat speaks the server's words: ${text}`);
      await said.locator("button", { hasText: "Set API Key" }).waitFor();
      await chat.waitForFunction(() => document.getElementById("input")?.value === "What does a.py do?");
      expect(stub.requests.length === 0, "a request reached the API without a key");
      step(`no key: the chat says "${text}", the message is back in the input`);
      await screenshot(page, "no-key");
    });
  } finally {
    await stub.close();
  }
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
