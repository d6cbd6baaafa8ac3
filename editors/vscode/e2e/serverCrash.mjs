// A server that crashes while the user works and does not start again, end to end in a real VS Code (code-server):
// `compactLsp.server.command` runs the real server once, then, as the language client restarts it, a program that
// dies with a Python traceback (an install broken meanwhile). The user hears of it once, as of a start that failed:
// one toast of ours with the cause and what to do, none of the language client's own; the chat says it in place of
// its input. Needs what run.mjs needs (e2e/setup.sh, npm run package).
import * as fs from "node:fs";
import * as path from "node:path";
import { BROKEN_INSTALL, PYTHON, compactView, expect, inCodeServer, runScenario, screenshot, shownText, step, workspaceWithServer } from "./harness.mjs";

/** A workspace, and a server command that starts the real server the first time only (and says its process id). */
function prepare() {
  return workspaceWithServer("crash", "server-once", (dirs) =>
    `if [ ! -e '${dirs.run}/started' ]; then echo $$ > '${dirs.run}/started'; exec '${PYTHON}' -m compact_lsp "$@"; fi\n${BROKEN_INSTALL}`,
  );
}

async function main() {
  const dirs = prepare();
  await inCodeServer("server-crash", dirs, async (page) => {
    const chat = await compactView(page, ".welcome h2");
    await chat.locator("#composer:not([hidden])").waitFor();
    const pid = Number(fs.readFileSync(path.join(dirs.run, "started"), "utf8").trim());
    step("the server runs: the chat has its input");
    process.kill(pid, "SIGKILL"); // the server dies; the language client restarts it, and that start fails
    const toast = page.locator(".notification-toast", { hasText: "Compact's server did not start" });
    await toast.waitFor();
    for (const button of ["Open Settings", "Show Server Log"]) {
      await toast.getByRole("button", { name: button }).waitFor();
    }
    const said = await shownText(toast.locator(".notification-list-item-message"));
    expect(said.includes("ModuleNotFoundError: No module named 'pygls'"), `the toast does not give the cause: ${said}`);
    await chat.locator(".welcome.not-started").waitFor();
    expect(await chat.locator("#composer").isHidden(), "the chat offers an input nothing would answer");
    const toasts = await page.locator(".notification-toast").allInnerTexts();
    expect(toasts.length === 1, `one toast, not the language client's own: ${JSON.stringify(toasts)}`);
    expect(!/EPIPE|erroring|Restarting server failed|Connection to server/.test(toasts.join(" ")), `a toast in the language client's words: ${JSON.stringify(toasts)}`);
    step(`the server crashed and did not start again: one toast, "${said.slice(0, 60)}…", and the chat says it`);
    await screenshot(page, "server-crash");
  });
}

runScenario(main);
