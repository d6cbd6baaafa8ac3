// A second window on the same folder, end to end in a real VS Code (code-server): the first window's chat writes the
// session; the second window (its own extension host and server) shows the same chat read-only from the start, in
// plain words (another window writes it: continue there or start a New Chat; no process id, no class or method),
// with no input. When the first window closes, the second one's chat gets its input back at once, and goes on; a
// third window's chat, writable while nobody wrote, turns read-only as soon as the second one writes; New Chat in
// the second gives a chat of its own. (A message that slips through before the listing says so is refused by the
// server, taken back out of the chat and put back in the input: chatModel's refuseTurn.)
// Needs what run.mjs needs (e2e/setup.sh, npm run package, npm run build:tests for the Messages API stub).
import { compactView, expect, inCodeServer, runCommand, runScenario, screenshot, send, shownText, smallWorkspace, step, withMessagesApiStub } from "./harness.mjs";

async function main() {
  const dirs = smallWorkspace("second");
  const turns = [
    [{ type: "text", text: "a.py defines a0." }],
    [{ type: "text", text: "Continued in the second window." }],
    [{ type: "text", text: "A chat of its own." }],
  ];
  await withMessagesApiStub(turns, async () => {
    await inCodeServer("second-window", dirs, async (page) => {
      // 1. The first window's chat: its server writes the session from now on.
      const first = await compactView(page, ".welcome h2"); // drawn once the chat's script runs: keys reach it
      await send(first, "What does a.py do?");
      await first.locator(".entry.assistant", { hasText: "a.py defines a0" }).waitFor();
      step("the first window's chat answered");

      // 2. A second window on the same folder shows that chat; a message sent there is refused in plain words.
      const second = await page.context().browser().newPage({ viewport: { width: 1280, height: 800 } });
      second.setDefaultTimeout(60_000);
      await second.goto(page.url());
      await second.locator(".monaco-workbench").waitFor();
      const chat = await compactView(second, ".entry.assistant");
      await chat.locator(".entry.user", { hasText: "What does a.py do?" }).waitFor();
      const notice = chat.locator(".entry.notice.elsewhere");
      await notice.waitFor();
      const said = await shownText(notice);
      expect(said.startsWith("This chat is open in another window, which writes it; here it is read-only."), `the chat says: ${said}`);
      expect(!/process \d|SessionBusy|compact\/|compact-lsp/.test(said), `the chat speaks the server's words: ${said}`);
      expect(await chat.locator("#composer").isHidden(), "the second window offers an input its server would refuse");
      step(`second window, before anything is typed: "${said}", no input`);
      await screenshot(second, "second-window");

      // 3. The first window closes: its server lets go of the session, and this chat gets its input back at once (no
      // listing, no reload: compact/didChangeOpenElsewhere), with the first window's turn; what is sent goes on here.
      const closed = Date.now();
      await page.close();
      await chat.locator("#composer:not([hidden])").waitFor({ timeout: 90_000 });
      const after = ((Date.now() - closed) / 1000).toFixed(1);
      expect((await chat.locator(".entry.notice.elsewhere").count()) === 0, "the chat still says another window writes it");
      await chat.locator(".entry.assistant", { hasText: "a.py defines a0" }).waitFor();
      step(`the first window closed: the second window's chat has its input back, its history kept (${after} s later)`);
      await screenshot(second, "second-window-continues");

      // 4. A third window opens while nobody writes the session: its chat is writable too. The second window writes
      // first, and the third one's chat turns read-only at once (it waited for its next listing), with that turn.
      const third = await second.context().browser().newPage({ viewport: { width: 1280, height: 800 } });
      third.setDefaultTimeout(60_000);
      await third.goto(second.url());
      await third.locator(".monaco-workbench").waitFor();
      const watching = await compactView(third, ".entry.assistant");
      await watching.locator("#composer:not([hidden])").waitFor();
      step("a third window while nobody writes the session: its chat has an input too");
      const sent = Date.now();
      await send(chat, "Go on here");
      await watching.locator(".entry.notice.elsewhere").waitFor({ timeout: 90_000 });
      const taken = ((Date.now() - sent) / 1000).toFixed(1);
      expect(await watching.locator("#composer").isHidden(), "the third window still offers an input its server would refuse");
      await chat.locator(".entry.assistant", { hasText: "Continued in the second window" }).waitFor();
      step("a message sent in the second window goes on in the same chat, answered");
      await watching.locator(".entry.assistant", { hasText: "Continued in the second window" }).waitFor();
      step(`the third window's chat turned read-only ${taken} s after the second one sent, and shows its turn`);
      await screenshot(third, "second-window-taken");
      await third.close();

      // 5. New Chat there: a chat of its own that is answered.
      await runCommand(second, "New Chat");
      await chat.locator(".welcome").waitFor();
      await send(chat, "Hello from the second window");
      await chat.locator(".entry.assistant", { hasText: "A chat of its own" }).waitFor();
      expect((await chat.locator(".entry.user", { hasText: "What does a.py do?" }).count()) === 0, "New Chat showed the old chat");
      step("New Chat in the second window: a chat of its own, answered");
      await second.close();
    });
  });
}

runScenario(main);
