// No API key, end to end in a real VS Code (code-server): a new user without ANTHROPIC_API_KEY sends a first message.
// The chat says in VS Code's words what to do (Set API Key; no environment variable, no "language server") with the
// button beside it, and the message is back in the input, ready to send once a key is set. Needs what run.mjs needs
// (e2e/setup.sh, npm run package, npm run build:tests for the Messages API stub).
import { compactView, expect, inCodeServer, smallWorkspace, runScenario, screenshot, send, shownText, step, withMessagesApiStub } from "./harness.mjs";

async function main() {
  const dirs = smallWorkspace("nokey");
  // no key, as on a new user's machine
  await withMessagesApiStub([[{ type: "text", text: "never asked: there is no key" }]], async (stub) => {
    await inCodeServer("no-key", dirs, async (page) => {
      const chat = await compactView(page, ".welcome h2"); // drawn once the chat's script runs: keys reach it
      await send(chat, "What does a.py do?");
      const said = chat.locator(".entry.error", { hasText: "API key" });
      await said.waitFor();
      const text = await shownText(said);
      expect(text.includes("Set API Key stores one for Compact; then send your message again."), `the chat says: ${text}`);
      expect(!/ANTHROPIC_API_KEY|language server/.test(text), `the chat speaks the server's words: ${text}`);
      await said.locator("button", { hasText: "Set API Key" }).waitFor();
      await chat.waitForFunction(() => document.getElementById("input")?.value === "What does a.py do?");
      expect(stub.requests.length === 0, "a request reached the API without a key");
      step(`no key: the chat says "${text}", the message is back in the input`);
      await screenshot(page, "no-key");
    });
  }, null);
}

runScenario(main);
