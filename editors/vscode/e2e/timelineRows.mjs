// The compaction timeline's other rows end to end in a real VS Code (code-server), as a user reads them: Codex's
// session (the rollout the real Codex wrote with our hook, tests/fixtures/codex/rollout-two-compactions.jsonl,
// followed read-only) with its two automatic compactions against the user's config.toml threshold, and the user's
// own session with a microcompaction, a full compaction and its undo (made over the protocol by a separate server,
// as an agent's client would). Every row shows its trigger and tokens before → after; a cleared result and our
// summary open read-only (never a dirty or Untitled document). Import to continue on Codex's session makes a copy
// that says where it came from. Needs e2e/setup.sh and `npm run package`.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  REPO,
  dirtyOrUntitled,
  editorText,
  expect,
  inCodeServer,
  openSession,
  protocolClient,
  runCommand,
  runFolders,
  screenshot,
  sessionRow,
  step,
  webviewFrame,
  widenSideBar,
  writeUserSettings,
} from "./harness.mjs";

const ROLLOUT = path.join(REPO, "tests", "fixtures", "codex", "rollout-two-compactions.jsonl");
const THREAD = "01a24922-191a-7333-9cdb-081049550edc";
const CODEX_TITLE = "read the modules";
const OUR_TITLE = "Build the project and tell me what fails";

/** The user's session: three long builds, then Compact clears the old results, compacts, and the user undoes it. */
async function seedOurSession(dirs) {
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY; // no key: the offline summariser writes the summary, no model is called
  const server = await protocolClient(dirs.workspace, { sessionDir: dirs.sessions, sessionMemory: { enabled: false }, microcompact: { keepRecent: 1 } }, env);
  const { sessionId } = await server.request("compact/newSession", { title: OUR_TITLE });
  const messages = [{ role: "user", content: `${OUR_TITLE}.` }];
  for (let round = 0; round < 3; round++) {
    const id = `toolu_make_${round}`;
    messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "Bash", input: { command: "make" } }] });
    const output = Array.from({ length: 300 }, (_, j) => `compiling unit ${round}.${j} ... ok`).join("\n");
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] });
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "The build passes: nothing fails." }] });
  await server.request("compact/append", { sessionId, messages });
  const micro = await server.command("compact.microcompact", { sessionId });
  const full = await server.command("compact.compact", { sessionId });
  await server.command("compact.undo", { sessionId });
  await server.close();
  step(`seeded ${sessionId}: cleared ${micro.cleared.length} results (${micro.tokensBefore} → ${micro.tokensAfter}), compacted (${full.tokensBefore} → ${full.tokensAfter}), undone`);
  return sessionId;
}

/** A workspace; Codex's rollout of it under HOME with the user's threshold; the user's own session. */
async function prepare() {
  const dirs = runFolders("rows");
  const { workspace, home } = dirs;
  fs.writeFileSync(path.join(workspace, "first_a.py"), "def first_a():\n    return 1\n");
  const day = path.join(home, ".codex", "sessions", "2026", "12", "06");
  fs.mkdirSync(day, { recursive: true });
  fs.writeFileSync(path.join(day, `rollout-2026-12-06T02-15-01-${THREAD}.jsonl`), fs.readFileSync(ROLLOUT, "utf8").replaceAll("/work/proj", workspace));
  fs.writeFileSync(path.join(home, ".codex", "config.toml"), "model_auto_compact_token_limit = 50000\n");
  writeUserSettings(dirs.user, dirs.run, { "editor.stickyScroll.enabled": false });
  dirs.ours = await seedOurSession(dirs);
  return dirs;
}

/** Opens a session from the palette's picker by its title, then its timeline; the timeline's text. */
async function openTimeline(page, title) {
  await openSession(page, title);
  await page.locator(".pane-header", { hasText: title }).first().waitFor(); // the chat shows it: it is current
  await runCommand(page, "Show Compaction Timeline");
  await page.locator(".tabs-container .tab.active", { hasText: "Compaction timeline" }).waitFor();
  await page.locator(".monaco-editor .view-line", { hasText: "# Compaction timeline" }).first().waitFor();
  return editorText(page);
}

/** Puts the cursor in the link on the line that has `text`, then opens it as a user would (Open Link). */
async function openLinkOn(page, text) {
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("Control+F");
  await page.keyboard.type(text); // finds the first match
  await page.keyboard.press("Escape"); // the match stays selected: the cursor is on its line
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  await runCommand(page, "Open Link", null);
}

async function main() {
  const dirs = await prepare();
  await inCodeServer("timeline-rows", dirs, async (page) => {
    await sessionRow(page, CODEX_TITLE);
    await page.locator(".monaco-list-row", { hasText: OUR_TITLE }).first().waitFor();
    await widenSideBar(page, 200);

    // 1. Codex's session: both automatic compactions, against the threshold of the user's config.toml, each with
    // Codex's summary and what our hook delivered, as Codex recorded it.
    const codex = await openTimeline(page, CODEX_TITLE);
    const codexChat = await webviewFrame(page, "#readonly:not([hidden])");
    const owner = (await codexChat.locator("#readonly").innerText()).replace(/\s+/g, " ");
    expect(/Codex's live session, read-only here/.test(owner), `the chat is not Codex's read-only session: ${owner}`);
    step(`Codex's timeline: ${codex.split("\n").filter((line) => /^## |compactions by|Hook delivered/.test(line)).join(" | ")}`);
    expect(codex.includes("2 compactions by Codex · automatic at 50k tokens."), `the timeline's head: ${codex}`);
    expect(/## Compacted \(auto\): 90k → 4k \(−86k\) \(fired at 90k, threshold 50k\)/.test(codex), `no first compaction: ${codex}`);
    expect(/## Compacted \(auto\): 90k → 3k \(−87k\) \(fired at 90k, threshold 50k\)/.test(codex), `no second compaction: ${codex}`);
    expect(codex.includes("> Summary 1: the user asked to read the modules.") && codex.includes("> Summary 2: the user asked to read the modules."), `no Codex summaries: ${codex}`);
    expect(/files first_b\.py, first_a\.py\./.test(codex) && /files second_b\.py, second_a\.py\./.test(codex), `no hook receipts with their files: ${codex}`);
    expect(!(await dirtyOrUntitled(page)), "a tab is dirty or Untitled");
    await page.keyboard.press("Control+Home");
    await screenshot(page, "timeline-codex", "vscode-timeline-codex.png");

    // 1b. Import to continue: the copy says where it came from (the server's importedFrom), in the chat's header, the
    // Sessions tree and the picker; Codex's own session stays listed beside it, read-only (as in Neovim).
    await codexChat.locator("button", { hasText: "Import to continue" }).click();
    await codexChat.locator("#composer:not([hidden])").waitFor();
    const header = page.locator(".pane-header", { hasText: "(imported from Codex)" }).first();
    await header.waitFor();
    await page.locator(".monaco-list-row", { hasText: /read the modules.*current.*imported from Codex/ }).first().waitFor();
    const rows = (await page.locator(".monaco-list-row", { hasText: CODEX_TITLE }).allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());
    step(`imported: header "${(await header.innerText()).replace(/\s+/g, " ").trim()}"; Sessions: ${rows.join(" | ")}`);
    expect(rows.length === 2 && rows.filter((row) => /imported from Codex/.test(row) && !/read-only/.test(row)).length === 1 && rows.filter((row) => /Codex · read-only/.test(row)).length === 1,
      `the copy and Codex's session are not listed once each: ${rows.join(" | ")}`);
    await screenshot(page, "imported-from-codex");
    await runCommand(page, "Open Session in Chat");
    const picked = page.locator(".quick-input-list .monaco-list-row", { hasText: /read the modules.*imported from Codex/ }).first();
    await picked.waitFor();
    step(`picker: ${(await picked.innerText()).replace(/\s+/g, " ").trim()}`);
    await page.keyboard.press("Escape");

    // 2. The user's own session: the chat's three markers, then the timeline's three rows with the same figures.
    const ours = await openTimeline(page, OUR_TITLE);
    const chat = await webviewFrame(page, ".entry.boundary");
    const markers = (await chat.locator(".entry.boundary").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    step(`our chat's markers: ${markers.join(" | ")}`);
    step(`our timeline: ${ours.split("\n").filter((line) => /^## |compactions by/.test(line)).join(" | ")}`);
    expect(/3 compactions by Compact · automatic at [\d.]+k tokens\./.test(ours), `the timeline's head: ${ours}`);
    const figures = (pattern, text) => pattern.exec(text)?.[1];
    const micro = figures(/## Cleared old tool results \(forced\): ([\d.]+k? → [\d.]+k? \(−[\d.]+k?\))/, ours);
    const full = figures(/## Compacted \(manual\): ([\d.]+k? → [\d.]+k? \(−[\d.]+k?\))/, ours);
    const undo = figures(/## Compaction undone \(manual\): ([\d.]+k? → [\d.]+k? \(\+[\d.]+k?\))/, ours);
    expect(micro !== undefined && full !== undefined && undo !== undefined, `not a micro, a full and an undone compaction, each with its figures: ${ours}`);
    for (const row of [micro, full, undo]) {
      expect(markers.some((marker) => marker.includes(row)), `the chat's markers and the timeline disagree: ${markers.join(" | ")} vs ${row}`);
    }
    expect(/- Bash \([\d.]+k? tokens\): compact-summary:\/result\//.test(ours), `no cleared result to open: ${ours}`);
    expect(!(await dirtyOrUntitled(page)), "a tab is dirty or Untitled");
    await page.keyboard.press("Control+Home");
    await screenshot(page, "timeline-ours", "vscode-timeline-ours.png");

    // 3. The full compaction's whole summary and a cleared result open read-only, from their links.
    await openLinkOn(page, "The whole summary");
    await page.locator(".tabs-container .tab.active", { hasText: "Summary of compaction 1" }).waitFor();
    await page.locator(".monaco-editor .view-line", { hasText: "Summary of the conversation before this compaction" }).first().waitFor();
    expect(!(await dirtyOrUntitled(page)), "the summary opened dirty or Untitled");
    step("the whole summary opened read-only: Summary of compaction 1.md");
    await screenshot(page, "timeline-ours-summary");
    await page.locator(".tabs-container .tab", { hasText: "Compaction timeline" }).first().click();
    await openLinkOn(page, "- Bash (");
    await page.locator(".tabs-container .tab.active", { hasText: "Bash" }).waitFor();
    await page.locator(".monaco-editor .view-line", { hasText: /compiling.unit.0\.\d+.\.\.\..ok/ }).first().waitFor();
    expect(!(await dirtyOrUntitled(page)), "the cleared result opened dirty or Untitled");
    step("the first cleared result opened read-only: what the first make printed");
    await screenshot(page, "timeline-ours-cleared");
  });
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
