// A server that dies as it starts, end to end in a real VS Code (code-server): `compactLsp.server.command` names a
// program that exits with a Python traceback (a broken install). The chat says, in place of an input nothing would
// answer, that the server did not start, with the traceback's last line as the cause and the ways on (Open Settings,
// Restart Server, Show Server Log); so does the Sessions view, where New Chat would fail, and one toast (the user may
// have the chat closed). Needs what run.mjs needs (e2e/setup.sh, npm run package).
import { BROKEN_INSTALL, compactView, expect, inCodeServer, runScenario, screenshot, shownText, step, workspaceWithServer } from "./harness.mjs";

/** A workspace, and a server command that fails as `python -m compact_lsp` does without its libraries. */
function prepare() {
  return workspaceWithServer("noserver", "broken-server", BROKEN_INSTALL);
}

async function main() {
  const dirs = prepare();
  await inCodeServer("no-server", dirs, async (page) => {
    const chat = await compactView(page, ".welcome.not-started");
    const said = await shownText(chat.locator(".welcome.not-started"));
    expect(said.includes("Compact's server did not start"), `the chat says: ${said}`);
    expect(said.includes("ModuleNotFoundError: No module named 'pygls'"), `the chat does not give the cause: ${said}`);
    expect(!/EPIPE|-32099|connection to server/.test(said), `the chat speaks the client's words: ${said}`);
    expect(await chat.locator("#composer").isHidden(), "the chat offers an input nothing would answer");
    for (const button of ["Open Settings", "Restart Server", "Show Server Log"]) {
      await chat.locator("button", { hasText: button }).waitFor();
    }
    step(`the chat says: "${said.slice(0, 140)}…", no input`);
    // with the chat closed the user still hears of it: one toast, in our words, with what to do (not the language
    // client's "write EPIPE" and "connection to server is erroring", one per attempt)
    const toast = page.locator(".notification-toast", { hasText: "Compact's server did not start" });
    await toast.waitFor();
    for (const button of ["Open Settings", "Show Server Log"]) {
      await toast.getByRole("button", { name: button }).waitFor();
    }
    const toasts = await page.locator(".notification-toast").allInnerTexts();
    expect(toasts.length === 1, `one toast, not one per attempt: ${JSON.stringify(toasts)}`);
    expect(!/EPIPE|erroring|-32099/.test(toasts.join(" ")), `a toast in the language client's words: ${JSON.stringify(toasts)}`);
    step(`one toast: "${(await shownText(toast.locator(".notification-list-item-message"))).slice(0, 60)}…" with Open Settings and Show Server Log`);
    // the Sessions view says so too, rather than "No sessions yet" beside a New Chat that would fail
    const sessions = page.locator(".welcome-view-content", { hasText: "Compact's server did not start" });
    await sessions.waitFor();
    expect((await page.locator(".welcome-view-content", { hasText: "No sessions yet" }).count()) === 0,
      "the Sessions view still offers New Chat with no server");
    await sessions.getByRole("button", { name: "Show Server Log" }).waitFor();
    step(`the Sessions view says: "${(await shownText(sessions)).slice(0, 80)}…"`);
    await screenshot(page, "no-server");
    // Open Settings shows the setting (machine-scoped: under code-server's Remote tab, not "No Settings Found")
    await chat.locator("button", { hasText: "Open Settings" }).click();
    await page.locator(".settings-editor .setting-item-contents", { hasText: "Server: Command" }).first().waitFor();
    step("Open Settings shows compactLsp.server.command");
    await page.keyboard.press("Control+W");
    await chat.locator("button", { hasText: "Show Server Log" }).click();
    await page.locator(".part.panel .monaco-editor .view-lines", { hasText: /No.module.{0,3}named.'pygls'/ }).first().waitFor(); // wrapped or not
    step("Show Server Log opens the log with the traceback");
  });
}

runScenario(main);
