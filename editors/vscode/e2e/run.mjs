// End to end in a real VS Code (code-server), driven by playwright-core in Debian's chromium, as a user would:
// a session with reads (made over the protocol, as an agent would) → the gauge shows it → the palette compacts it
// (the toast names the summariser) → the usage view → the chat in the Compact side bar shows that session, answers
// in Markdown, asks to edit a file inline (Show diff opens the diff editor; Allow once edits it and the open editor
// shows the change) → an automatic compaction whose model summary fails (API 529) shows a marker naming the
// fallback → a settings change moves the gauge → a slow compaction is cancelled from its notification ("Compaction
// cancelled") → a reload restores the chat. The Messages API is a loopback stub.
// Run `bash e2e/setup.sh` first (or `npm run e2e`). Screenshots land in e2e/.work/screens; `--docs` also copies
// the ones the READMEs show into docs/img/.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import {
  PYTHON,
  STEP_TIMEOUT,
  claudeCodeProject,
  compactView,
  expect,
  inCodeServer,
  protocolClient,
  runCommand,
  runFolders,
  screenshot,
  send,
  step,
  typeUnsaved,
  webviewFrame,
  webviewText,
  widenSideBar,
  writeUserSettings,
} from "./harness.mjs";

// Compiled by `npm run build:tests`.
const { startMessagesApiStub } = createRequire(import.meta.url)("../out/test/messagesApiStub.js");
const started = Date.now();

/**
 * A session with reads, made the way any agent makes one: a separate server on stdio, compact/newSession and
 * compact/append (the user asks, the assistant reads every file, then answers). It is stored in the session
 * directory, where the server that VS Code starts finds it.
 */
async function seedSession(dirs, files) {
  // No background notes: the chat's automatic compaction must go to the model (which then fails: the fallback).
  const server = await protocolClient(dirs.workspace, { sessionDir: dirs.sessions, sessionMemory: { enabled: false } });
  // Claude Code's session of this workspace, in its project folder under HOME: followed read-only by the server
  // that VS Code starts (listed with a lock; Import to continue makes a copy).
  const log = path.join(claudeCodeProject(dirs), "0b5e2c1a-7d3f-4e8a-9c6b-2f1d0a9e8b7c.jsonl");
  const cc = (type, uuid, parentUuid, at, message) =>
    JSON.stringify({ type, uuid, parentUuid, sessionId: "0b5e2c1a-7d3f-4e8a-9c6b-2f1d0a9e8b7c", cwd: dirs.workspace, timestamp: at, isSidechain: false, message });
  fs.writeFileSync(log, [
    cc("user", "u1", null, "2026-11-30T09:00:00.000Z", { role: "user", content: "Add a CSV export to report.py" }),
    cc("assistant", "a1", "u1", "2026-11-30T09:00:05.000Z", {
      id: "msg_cc_1", type: "message", role: "assistant", model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "I'll add it after the column functions." }], usage: { input_tokens: 14000, output_tokens: 5 },
    }),
  ].join("\n") + "\n");
  // Codex's session of this workspace, as Codex 0.171.0 writes it (its skills and environment context, the request,
  // an exec_command and its output, the answer), last written hours ago: followed read-only, Codex's in every word.
  const codexDay = path.join(dirs.home, ".codex", "sessions", "2026", "11", "28");
  fs.mkdirSync(codexDay, { recursive: true });
  const thread = "01a24915-0369-7163-81ea-9e0d2d33ba44";
  const codexText = (role, text) => ({ type: "response_item", payload: { type: "message", role,
    content: [{ type: role === "assistant" ? "output_text" : "input_text", text }] } });
  const rollout = path.join(codexDay, `rollout-2026-11-28T10-00-00-${thread}.jsonl`);
  fs.writeFileSync(rollout, [
    { type: "session_meta", payload: { id: thread, cwd: dirs.workspace, cli_version: "0.171.0" } },
    codexText("developer", "<skills_instructions>\n## Skills\n</skills_instructions><tools>\nx\n</tools>"),
    codexText("user", `<environment_context>\n  <cwd>${dirs.workspace}</cwd>\n</environment_context>`),
    codexText("user", "Explain the report columns"),
    { type: "response_item", payload: { type: "function_call", name: "exec_command", call_id: "call_1",
      arguments: JSON.stringify({ cmd: "cat src/report.py", yield_time_ms: 2000 }) } },
    { type: "response_item", payload: { type: "function_call_output", call_id: "call_1",
      output: "Chunk ID: 2e991e\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\ndef column_0(rows):\n" } },
    codexText("assistant", "Each column is a slice of the rows."),
  ].map((r) => JSON.stringify(r) + "\n").join(""));
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000); // older than the user's sessions, never current
  fs.utimesSync(rollout, twoHoursAgo, twoHoursAgo);
  const { sessionId } = await server.request("compact/newSession", { title: "How is the report built?" });
  const messages = [{ role: "user", content: "Read the source files and explain how the report is built." }];
  files.forEach((file, i) => {
    const id = `toolu_e2e_${i}`;
    messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "read_file", input: { file_path: path.relative(dirs.workspace, file) } }] });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: fs.readFileSync(file, "utf8") }] });
  });
  // A long test run and a long discussion: what compaction summarises away (the reads come back by rehydration).
  const testLog = Array.from({ length: 1500 }, (_, i) => `tests/test_report.py::test_column_${i} PASSED [${Math.floor((100 * i) / 1500)}%]`).join("\n");
  messages.push({ role: "assistant", content: [{ type: "tool_use", id: "toolu_e2e_tests", name: "Bash", input: { command: "pytest -v" } }] });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_e2e_tests", content: testLog }] });
  for (let turn = 0; turn < 12; turn++) {
    messages.push({ role: "assistant", content: [{ type: "text", text: `Step ${turn}: ` + "report.py formats the rows that data.py loads; main.py wires them together. ".repeat(40) }] });
    messages.push({ role: "user", content: `And what about column ${turn}?` });
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "Every column is a slice of the formatted rows." }] });
  const { usage } = await server.request("compact/append", { sessionId, messages });
  await server.close();
  return { sessionId, usage, claudeCode: log };
}

function prepare() {
  const dirs = runFolders("day");
  const { run, workspace, user } = dirs;
  fs.mkdirSync(path.join(workspace, "src"), { recursive: true });
  const sources = {
    "main.py": "from data import load\nfrom report import render\n\nprint(render(load('rows.csv')))\n",
    "data.py": Array.from({ length: 120 }, (_, i) => `def field_${i}(row):\n    return row[${i % 7}].strip()\n`).join("\n"),
    "report.py": Array.from({ length: 150 }, (_, i) => `def column_${i}(rows):\n    return [str(r) for r in rows if r][${i}:]\n`).join("\n"),
  };
  const files = Object.entries(sources).map(([name, text]) => {
    const file = path.join(workspace, "src", name);
    fs.writeFileSync(file, text);
    return file;
  });
  // Read by the chat's second turn: big enough to cross the auto-compact threshold.
  fs.writeFileSync(
    path.join(workspace, "src", "big.py"),
    Array.from({ length: 900 }, (_, i) => `def handler_${i}(request, context):\n    return context.render("page_${i}", request.args)\n`).join("\n"),
  );
  const changeSettings = writeUserSettings(user, run, {
    // No server setting: the extension starts the server bundled in the .vsix (PATH has no compact-lsp).
    // Automatic compaction once the chat has read big.py (the seeded session is compacted by hand first).
    "compactLsp.autoCompact.threshold": AUTO_COMPACT_AT,
    "compactLsp.rehydration.tokenBudget": 6000,
    "files.autoSave": "off",
    // Trust on: the first window is in Restricted Mode (the chat says so) until the user trusts the folder.
    "security.workspace.trust.enabled": true,
    "security.workspace.trust.startupPrompt": "never",
  });
  return { ...dirs, files, changeSettings };
}

const AUTO_COMPACT_AT = 12000;

/** Closes the toasts shown so far (they would cover what comes next). */
async function dismissToasts(page) {
  await runCommand(page, "Clear All Notifications", "Notifications");
}

/** Every line of the files called `name` under `dir`. */
function logLines(dir, name) {
  const lines = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name === name) {
      lines.push(...fs.readFileSync(path.join(entry.parentPath ?? entry.path, entry.name), "utf8").split("\n"));
    }
  }
  return lines;
}

/** Polls `probe` until it gives a truthy value (what a redraw in between does not change), or undefined after `timeout`. */
async function eventually(probe, timeout = STEP_TIMEOUT) {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value || Date.now() > until) {
      return value || undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main() {
  const dirs = prepare();
  const seeded = await seedSession(dirs, dirs.files);
  step(`seeded ${seeded.sessionId} with 3 reads, a test run and a long discussion: ${seeded.usage.total} tokens`);
  // The Messages API stub: the agent's turns in order; the summariser's requests (no tools) have their own script.
  const stub = await startMessagesApiStub(
    [
      [
        { type: "text", text: "Let me read data.py first." },
        { type: "tool_use", id: "toolu_chat_1", name: "read_file", input: { file_path: "src/data.py" } },
      ],
      [{ type: "tool_use", id: "toolu_chat_2", name: "edit_file", input: { file_path: "src/data.py", old_string: "def field_0(row):", new_string: "def first_field(row):" } }],
      [{ type: "text", text: "## Done\n\nRenamed **field_0** to `first_field` in [data.py](src/data.py#L3):\n\n```python\ndef first_field(row):\n    return row[0].strip()\n```" }],
      [{ type: "tool_use", id: "toolu_chat_4", name: "edit_file", input: { file_path: "src/data.py", old_string: "def field_1(row):", new_string: "def second_field(row):" } }],
      [{ type: "text", text: "Renamed field_1 too." }],
      [{ type: "tool_use", id: "toolu_chat_3", name: "read_file", input: { file_path: "src/big.py" } }],
      [{ type: "text", text: "big.py defines **900 handlers**, one per page." }],
      [{ type: "tool_use", id: "toolu_chat_5", name: "grep", input: { pattern: "def column_149", path: "src" } }],
      [{ type: "text", text: "Picking up the imported session: the CSV export goes after `column_149` in report.py." }],
    ],
    [
      [{ type: "text", text: "<summary>The user asked how the report is built: report.py formats the rows that data.py loads; main.py wires them.</summary>" }],
      // The automatic compaction's summary: the API is overloaded (529) on the first try and both retries.
      { error: { status: 529, type: "overloaded_error", message: "Overloaded" }, repeat: 3 },
      // The compaction that the user cancels: the model is slow.
      { delayMs: 60_000, blocks: [{ type: "text", text: "<summary>too late</summary>" }] },
    ],
  );
  // code-server runs with no compact-lsp on PATH (the checkout's .venv/bin is left out), only a python3, and HOME
  // under the run (Claude Code's projects, Codex's sessions and code-server's own config live there).
  const env = { ANTHROPIC_BASE_URL: stub.baseUrl, ANTHROPIC_API_KEY: "test-key" };
  try {
    await inCodeServer("day", dirs, (page) => dayOfUse(page, dirs, stub, seeded), env);
  } finally {
    await stub.close();
  }
}

/** The day of use in the workbench `page` (the scenario of `inCodeServer`). */
async function dayOfUse(page, dirs, stub, seeded) {
  // 0. Restricted Mode: the folder is not trusted yet, so the chat says why Compact waits (no silence) and the
  // gauge offers trust; trusting the folder starts the server. Then the walkthrough.
  const paused = await compactView(page, ".welcome.restricted");
  const pausedText = (await paused.locator(".welcome.restricted").innerText()).trim().replace(/\s+/g, " ");
  expect(await paused.locator("#composer").isHidden(), "Restricted Mode still offers the chat's input");
  step(`Restricted Mode: "${pausedText.slice(0, 90)}…"`);
  await screenshot(page, "0-restricted-mode");
  await paused.locator("button", { hasText: "Manage Workspace Trust" }).click();
  await page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first().click();
  await webviewFrame(page, "#composer:not([hidden])");
  step("trusted the folder: the chat's input is back and the server starts");
  await page.keyboard.press("Control+W"); // the trust editor
  await runCommand(page, "Get Started");
  await page.getByText("Get started with Compact").first().waitFor();
  const stepTitles = await page.locator(".getting-started-step .step-title").allInnerTexts();
  step(`walkthrough: ${stepTitles.map((t) => t.trim()).join(" / ")}`);
  expect(stepTitles.length === 5, `the walkthrough has ${stepTitles.length} steps`);
  await screenshot(page, "0-walkthrough", "vscode-walkthrough.png");
  await page.keyboard.press("Control+W");

  // 1. The gauge follows the seeded session (the user's, not Claude Code's newer one); the palette compacts it;
  // the toast names the summariser.
  const gauge = page.locator(".statusbar-item", { hasText: /\/ 200k/ });
  await gauge.waitFor();
  const seededGauge = `${(seeded.usage.total / 1000).toFixed(1).replace(/\.0$/, "")}k / 200k`;
  await page.locator(".statusbar-item", { hasText: seededGauge }).waitFor();
  const launched = logLines(path.join(dirs.user, "logs"), "Compact.log").find((line) => line.includes("Starting the server ("));
  if (!launched?.includes("Starting the server (bundled)")) {
    throw new Error(`the extension did not start its bundled server: ${launched}`);
  }
  step(`server: ${launched.replace(/^.*Starting the server/, "Starting the server")}`);
  const before = (await gauge.innerText()).trim();
  step(`status bar before: "${before}"`);
  await runCommand(page, "Compact Conversation");
  await page.locator(".quick-input-widget", { hasText: "Optional instructions" }).waitFor();
  await page.locator(".quick-input-widget input").fill("keep how the report is built");
  await page.keyboard.press("Enter");
  step("ran Compact: Compact Conversation… from the palette");
  const toast = page.locator(".notification-toast", { hasText: "Conversation compacted" });
  await toast.waitFor();
  const notice = (await toast.innerText()).trim().split("\n")[0];
  step(`notification: "${notice}"`);
  expect(notice.includes("Summary by the model"), `the toast does not name the summariser: ${notice}`);
  await page.waitForFunction(
    ([text]) => [...document.querySelectorAll(".statusbar-item")].some((e) => /\/ 200k/.test(e.textContent) && !e.textContent.includes(text)),
    [before.replace(/^\S*\s*/, "")],
  );
  const after = (await gauge.innerText()).trim();
  step(`status bar after: "${after}"`);
  await dismissToasts(page);

  // 2. The usage view: one panel in the active group.
  await gauge.click();
  const view = await webviewText(page, "#summary");
  await webviewText(page, "h2 >> text=Read files");
  step(`usage view: "${view}"`);
  expect(/\/ 200k/.test(view), `the usage view does not show the usage: ${view}`);
  const thresholds = await webviewText(page, "p.muted >> text=/warning at/");
  expect(!/warning at 0\b/.test(thresholds), `a small threshold gives "warning at 0": ${thresholds}`);
  expect((await page.locator(".editor-group-container").count()) === 1, "the usage view opened a new editor group");
  await screenshot(page, "1-usage-view", "vscode-usage.png");
  await runCommand(page, "Show Rehydration Preview");
  const preview = await webviewText(page, "#summary >> text=/re-attached/");
  step(`rehydration preview: "${preview}" (${thresholds})`);
  expect(!/NaN/.test(preview), `the rehydration preview reads NaN: ${preview}`);
  expect((await page.locator(".editor-group-container").count()) === 1, "the rehydration preview opened a new editor group");
  await page.keyboard.press("Control+W"); // close it again: the chat is next

  // 3. The chat in the side bar shows the current session (the seeded one, compacted: a marker says so).
  await runCommand(page, "Open Chat");
  const chat = await webviewFrame(page, "#input");
  await widenSideBar(page); // so the screenshots read well
  await chat.locator(".entry.boundary.full").first().waitFor();
  step(`chat restored: "${(await chat.locator(".entry.boundary").first().innerText()).trim()}"`);
  await page.locator(".monaco-list-row", { hasText: "How is the report built?" }).waitFor();
  step("sessions tree lists the seeded session");

  // 4. A turn that edits a file (open in an editor): the approval is inline, Show diff opens VS Code's diff
  // editor; after "Allow once" the open editor shows the agent's change.
  await runCommand(page, "Go to File", null);
  await page.locator(".quick-input-widget input").fill("data.py");
  await page.locator(".quick-input-list .monaco-list-row", { hasText: "data.py" }).first().waitFor();
  await page.keyboard.press("Enter");
  await page.locator(".monaco-editor .view-line", { hasText: "def field_0(row):" }).first().waitFor();
  await send(chat, "Rename field_0 in data.py to first_field");
  const approval = chat.locator(".entry.approval.pending");
  await approval.waitFor();
  const waiting = (await chat.locator(".entry.status").innerText()).trim();
  step(`approval inline: "${(await approval.locator(".approval-head").innerText()).trim()}"; chat says "${waiting}"`);
  expect(waiting.includes("Waiting for your approval"), `the chat does not say it waits: ${waiting}`);
  // The preview is a unified diff with context (jsdiff), not the whole file removed and added; the buttons are in
  // view above it.
  await approval.locator(".diff-line.add", { hasText: "+def first_field(row):" }).waitFor();
  const diffLines = await approval.locator(".diff-line").allInnerTexts();
  const removed = diffLines.filter((line) => line.startsWith("-"));
  expect(removed.length === 1 && removed[0] === "-def field_0(row):", `the preview removes more than the edited line: ${removed.join(" | ")}`);
  expect(diffLines.some((line) => line.startsWith(" ")) && diffLines[0].startsWith("@@ -1,"), `no context lines: ${diffLines.join(" | ")}`);
  const allow = approval.locator("button", { hasText: "Allow once" });
  const box = await allow.boundingBox();
  const composerBox = await chat.locator("#composer").boundingBox();
  expect(box !== null && composerBox !== null && box.y + box.height <= composerBox.y && box.y >= 0,
    `Allow once is not in view: ${JSON.stringify(box)} above the composer at ${JSON.stringify(composerBox)}`);
  step(`approval preview: a unified diff of ${diffLines.length} lines (${diffLines.slice(0, 3).join(" | ")} …), Allow/Deny in view`);
  await approval.locator("button[data-action=diff]").click();
  await page.locator(".tab", { hasText: "the agent's proposal" }).waitFor();
  await page.locator(".monaco-diff-editor").first().waitFor();
  await page.locator(".monaco-diff-editor .view-line", { hasText: "def first_field(row):" }).first().waitFor();
  step("Show diff opened the diff editor with the proposed change");
  await screenshot(page, "2-approval-diff", "vscode-approval.png");
  await allow.click();
  await page.locator(".tab", { hasText: "the agent's proposal" }).waitFor({ state: "detached" });
  step("the proposal's tab closed after the decision");
  await chat.locator(".entry.approval.decided", { hasText: "Allowed once" }).waitFor();
  await chat.locator(".entry.tool.done", { hasText: "edit_file" }).waitFor();
  await chat.locator(".entry.assistant h2", { hasText: "Done" }).waitFor();
  await chat.locator(".entry.assistant strong", { hasText: "field_0" }).waitFor();
  await chat.locator(".code-block button[data-action=copy]").first().waitFor();
  const edited = fs.readFileSync(path.join(dirs.workspace, "src", "data.py"), "utf8");
  expect(edited.startsWith("def first_field(row):"), "the edit did not reach the file");
  // A link in the answer opens the file at its line (data.py#L3).
  await chat.locator(".entry.assistant a", { hasText: "data.py" }).click();
  await page.locator(".statusbar-item", { hasText: "Ln 3, Col 1" }).waitFor();
  step("the answer's link [data.py](src/data.py#L3) opened data.py at line 3");
  // The approved edit stays in the chat as a row naming the file and its lines, opening it at the change.
  const editedRow = chat.locator(".entry.edited", { hasText: "src/data.py" });
  const editedText = (await editedRow.innerText()).replace(/\s+/g, " ").trim();
  expect(editedText === "Edited src/data.py +1 \u22121", `the edited-file row reads ${JSON.stringify(editedText)}`);
  await editedRow.locator("a").click();
  await page.locator(".statusbar-item", { hasText: "Ln 1, Col 1" }).waitFor();
  step(`the chat keeps "${editedText}"; clicking it opened data.py at the change (line 1)`);
  await page.locator(".editor-instance .monaco-editor:not(.original-in-monaco-diff-editor) .view-line", { hasText: "def first_field(row):" }).first().waitFor();
  step("the open editor of data.py shows the agent's edit");
  // Pins: the chat's read of data.py (never cleared by microcompaction) and, from the palette, the file itself.
  const readEntry = chat.locator(".entry.tool.done[data-key='tool-toolu_chat_1']");
  await readEntry.hover();
  await readEntry.locator("button[data-action=pin]").click();
  await page.locator(".notification-toast", { hasText: "Pinned the result of read_file src/data.py" }).waitFor();
  await page.locator(".editor-instance .monaco-editor .view-line").first().click();
  await runCommand(page, "Pin File for Rehydration");
  await page.locator(".notification-toast", { hasText: "Pinned src/data.py" }).waitFor();
  await dismissToasts(page);
  await runCommand(page, "Show Context Usage");
  const pinned = await webviewText(page, "h2 >> text=/Pinned/");
  expect(pinned === "Pinned (2)", `the usage view does not list both pins: ${pinned}`);
  step("pinned the read from the chat and the file from the palette: the usage view lists both");
  const dataRow = await webviewText(page, "tr:has(code:text-is('src/data.py')):has-text('fresh')");
  expect(!/unsaved/.test(dataRow), `the agent's clean edit is flagged unsaved: ${dataRow}`);
  step(`usage view after the edit: "${dataRow.replace(/\s+/g, " ")}"`);
  await page.keyboard.press("Control+W");
  step("allowed: data.py edited, the answer is rendered Markdown with a copy button");
  await screenshot(page, "3-chat", "vscode-chat.png");

  // 5. The user has unsaved changes in data.py when the agent edits it again: never overwritten, the user is asked.
  await typeUnsaved(page, "data.py", "def first_field(row):", "# my own note\n");
  // A file mention attaches the file: the chat shows a chip, the model gets its text.
  await chat.locator("#input").fill("Rename field_1 to second_field as well, as ");
  await chat.locator("#input").press("End");
  await chat.locator("#input").pressSequentially("@src/mai");
  await chat.locator(".mentions li", { hasText: "src/main.py" }).waitFor();
  await chat.locator("#input").press("Tab"); // takes the suggestion
  await chat.locator("#input").pressSequentially("uses it");
  const typed = await chat.locator("#input").inputValue();
  expect(typed.endsWith("as @src/main.py uses it"), `the suggestion was not taken: ${typed}`);
  await chat.locator("#input").press("Enter");
  await chat.locator(".entry.user .attachment", { hasText: "src/main.py" }).waitFor();
  await chat.locator(".entry.approval.pending").waitFor();
  const sentToModel = JSON.stringify(stub.requests.at(-1)?.messages ?? []);
  expect(sentToModel.includes("from report import render"), "the mentioned file's text did not reach the model");
  step("@src/mai + Tab suggested and took src/main.py; @src/main.py attached the file: a chip in the chat, its text in the model's request");
  // Keyboard only: the prompt takes the focus on "Allow once" as it appears (the message was sent, nothing is
  // typed); from the input one Shift+Tab reaches it again; Tab goes on to the next button; Enter answers.
  const focusedText = () => chat.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
  await chat.waitForFunction(() => document.activeElement?.textContent?.trim() === "Allow once");
  await chat.locator("#input").focus();
  await page.keyboard.press("Shift+Tab");
  const once = await focusedText();
  expect(once === "Allow once", `one Shift+Tab from the input reached ${JSON.stringify(once)}, not Allow once`);
  await page.keyboard.press("Tab");
  const next = await focusedText();
  expect(next === "Allow for this session", `Tab from Allow once reached ${JSON.stringify(next)}`);
  await page.keyboard.press("Enter");
  step("answered the prompt with the keyboard only (focus on Allow once as it appeared; Shift+Tab from the input reaches it; Tab, Enter)");
  const conflict = page.locator(".notification-toast", { hasText: "has unsaved changes" });
  await conflict.waitFor();
  step(`dirty editor: "${(await conflict.locator(".notification-list-item-message").innerText()).trim()}"`);
  await conflict.locator(".monaco-button", { hasText: "Keep My Changes" }).click();
  await chat.locator(".entry.assistant", { hasText: "Renamed field_1 too" }).waitFor();
  expect(fs.readFileSync(path.join(dirs.workspace, "src", "data.py"), "utf8").includes("def second_field(row):"), "the second edit did not reach the file");
  await page.locator(".editor-instance .monaco-editor .view-line", { hasText: "# my own note" }).first().waitFor();
  expect((await page.locator(".tab.dirty", { hasText: "data.py" }).count()) === 1, "the unsaved editor was overwritten");
  step("the unsaved editor was kept as the user asked; the file on disk has the agent's edit");

  // 6. Automatic compaction in the chat; the model summary fails (529), the fallback is named.
  await send(chat, "What is in big.py?");
  const autoMarker = chat.locator(".entry.boundary.full.fallback");
  await autoMarker.waitFor();
  const autoText = (await autoMarker.innerText()).trim();
  step(`auto-compaction marker: "${autoText}"`);
  expect(/compacted automatically/.test(autoText) && /offline summary, because the model failed/.test(autoText),
    `the marker does not say what happened: ${autoText}`);
  await chat.locator(".entry.assistant", { hasText: "900 handlers" }).waitFor();
  const autoToast = page.locator(".notification-toast", { hasText: "compacted automatically" });
  await autoToast.waitFor();
  step(`auto-compaction toast: "${(await autoToast.locator(".notification-list-item-message").innerText()).trim()}"`);
  const toastButtons = await autoToast.locator(".monaco-button").allInnerTexts();
  expect(!toastButtons.some((b) => /API Key/.test(b)), `a 529 toast offers Set API Key while a key is set: ${toastButtons.join(", ")}`);
  expect(/\d+(\.\d)?k → \d+(\.\d)?k/.test(autoText), `the marker's figures are not in the one format (26.2k): ${autoText}`);
  // The marker opens the summary the model read instead.
  await chat.locator(".entry.boundary.full.fallback button[data-action=summary]").last().click();
  await page.locator(".monaco-editor .view-line", { hasText: "Summary of the conversation before this compaction" }).first().waitFor();
  step("the compaction marker opened its summary");
  // read-only: a virtual document named for what it is, never a dirty Untitled one that asks to be saved
  const summaryTab = page.locator(".tabs-container .tab.active");
  const summaryLabel = (await summaryTab.innerText()).trim();
  expect(/Summary of compaction \d+/.test(summaryLabel) && !/Untitled/.test(summaryLabel), `the summary's tab: ${summaryLabel}`);
  expect(!(await summaryTab.evaluate((tab) => tab.classList.contains("dirty"))), "the summary's tab is dirty");
  await page.keyboard.press("Control+W");
  const saveDialog = await page.locator(".monaco-dialog-box", { hasText: "Don't Save" }).waitFor({ timeout: 2000 }).then(() => true, () => false);
  expect(!saveDialog, "closing the summary asked to save it");
  step(`the summary opened read-only as "${summaryLabel}" and closed without a save prompt`);
  await screenshot(page, "4-auto-compaction", "vscode-auto-compaction.png");
  // The compaction timeline: every compaction of the session, one section each, read-only.
  await runCommand(page, "Show Compaction Timeline");
  await page.locator(".monaco-editor .view-line", { hasText: "Compaction timeline" }).first().waitFor();
  const timelineText = (await page.locator(".editor-group-container .monaco-editor .view-lines").first().innerText()).replace(/\u00a0/g, " ");
  expect(/Compacted \(auto\)/.test(timelineText), `the timeline does not show the automatic compaction: ${timelineText}`);
  const timelineTab = (await page.locator(".tabs-container .tab.active").innerText()).trim();
  expect(/Compaction timeline/.test(timelineTab), `the timeline's tab: ${timelineTab}`);
  await screenshot(page, "4b-timeline", "vscode-timeline.png");
  step(`timeline: ${timelineText.split("\n").filter((line) => /^## /.test(line)).join(" | ")}`);
  await page.keyboard.press("Control+W");

  // 7. A settings change reaches the gauge without a reload.
  dirs.changeSettings({ "compactLsp.contextWindow": 100000 });
  await page.locator(".statusbar-item", { hasText: /\/ 100k/ }).waitFor();
  step(`settings change: gauge "${(await page.locator(".statusbar-item", { hasText: /\/ 100k/ }).innerText()).trim()}"`);

  // 8. A slow compaction, cancelled from its notification: an outcome, not a failure.
  await runCommand(page, "Compact Conversation");
  await page.locator(".quick-input-widget", { hasText: "Optional instructions" }).waitFor();
  await page.keyboard.press("Enter");
  const progress = page.locator(".notification-toast", { hasText: "Compacting conversation" });
  await progress.waitFor();
  const inChat = (await chat.locator(".entry.status.activity").innerText({ timeout: STEP_TIMEOUT })).trim();
  step(`compaction in progress, in the chat: "${inChat}"`);
  expect(/Compacting/.test(inChat), `the chat does not show the compaction: ${inChat}`);
  await progress.locator(".monaco-button", { hasText: "Cancel" }).click();
  const cancelled = page.locator(".notification-toast", { hasText: "Compaction cancelled" });
  await cancelled.waitFor();
  const cancelText = (await cancelled.innerText()).trim().split("\n")[0];
  step(`cancel: "${cancelText}"`);
  expect(!/failed/i.test(cancelText), `a cancel is reported as a failure: ${cancelText}`);
  await dismissToasts(page);

  // 9. A pythonPath that does not exist: the toast says so and opens the setting; fixing it starts the server.
  dirs.changeSettings({ "compactLsp.server.pythonPath": "/nonexistent/bin/python" });
  const badPath = page.locator(".notification-toast", { hasText: "does not exist" });
  await badPath.waitFor();
  await badPath.locator(".monaco-button", { hasText: "Open Settings" }).waitFor();
  step(`bad pythonPath: "${(await badPath.locator(".notification-list-item-message").innerText()).trim()}"`);
  dirs.changeSettings({ "compactLsp.server.pythonPath": PYTHON });
  await page.locator(".statusbar-item", { hasText: /\/ 100k/ }).waitFor();
  await dismissToasts(page);

  // 10. A reload restores the user's chat (messages and markers) from the server, though Claude Code wrote to its
  // session just before: a followed session never becomes current by itself.
  fs.appendFileSync(seeded.claudeCode, JSON.stringify({
    type: "user", uuid: "u2", parentUuid: "a1", sessionId: "0b5e2c1a-7d3f-4e8a-9c6b-2f1d0a9e8b7c", cwd: dirs.workspace,
    timestamp: new Date().toISOString(), isSidechain: false, message: { role: "user", content: "And a JSON export too" },
  }) + "\n");
  await page.reload();
  await page.locator(".monaco-workbench").waitFor();
  let restored = await webviewFrame(page, ".entry.boundary.fallback");
  await restored.locator(".entry.user", { hasText: "Rename field_0" }).waitFor();
  await restored.locator(".entry.assistant", { hasText: "900 handlers" }).waitFor();
  await page.locator(".monaco-list-row", { hasText: /How is the report built\?.*current/ }).waitFor();
  expect((await page.locator(".monaco-list-row", { hasText: /Add a CSV export.*current/ }).count()) === 0, "Claude Code's session became current on reload");
  expect((await restored.locator(".entry", { hasText: "And a JSON export too" }).count()) === 0, "the chat switched to Claude Code's session");
  step(`reload: chat restored with ${await restored.locator(".entry.boundary").count()} markers; the user's session is current, not Claude Code's newer one`);
  const editedRows = (await restored.locator(".entry.edited").allInnerTexts()).map((r) => r.replace(/\s+/g, " ").trim());
  expect(editedRows.length === 2 && editedRows.every((r) => r === "Edited src/data.py +1 \u22121"), `after a reload the edited rows read ${JSON.stringify(editedRows)}`);
  step(`reload: both edits are rows again (${editedRows.join(" | ")})`);
  await screenshot(page, "5-reloaded");
  const exitErrors = logLines(path.join(dirs.user, "logs"), "Compact.log").filter((line) => /\[error\].*exited with code 0/i.test(line));
  expect(exitErrors.length === 0, `a clean server exit is logged as an error: ${exitErrors.join("\n")}`);

  // 11. New Chat: the welcome. Claude Code's session, opened from the Sessions tree: read-only (no input), its
  // refusals in VS Code's words, its two figures explained; Import to continue makes a copy that takes input.
  await page.locator(".pane-header .action-label[aria-label='New Chat']").first().click();
  const welcome = (await restored.locator(".welcome").innerText()).trim().replace(/\s+/g, " ");
  expect(/Ask the agent about this workspace/.test(welcome) && /@src\/app\.py/.test(welcome), `no welcome in the empty chat: ${welcome}`);
  step(`empty chat: "${welcome.slice(0, 80)}…"`);
  await screenshot(page, "7-welcome", "vscode-welcome.png");
  await page.locator(".monaco-list-row", { hasText: "Add a CSV export" }).click();
  await restored.locator(".entry.user", { hasText: "And a JSON export too" }).waitFor();
  await restored.locator("#readonly:not([hidden])").waitFor();
  expect(await restored.locator("#composer").isHidden(), "a read-only session still offers the chat's input");
  expect((await restored.locator("button", { hasText: "Import to continue" }).count()) === 1, "not one Import to continue button");
  step("Claude Code's session opened read-only: no input, one Import to continue");
  // the warning before our session compacts (the low threshold brings it) outlives the switch: it names its session
  const warnings = page.locator(".notification-toast", { hasText: "compacts by itself" }).locator(".notification-list-item-message");
  for (const said of await warnings.allInnerTexts()) {
    step(`warning beside Claude Code's session: "${said.trim()}"`);
    expect(/^Compact: "How is the report built\?" compacts by itself/.test(said.trim()), `the warning does not name the session it warns about: ${said}`);
  }
  await screenshot(page, "8-read-only", "vscode-read-only.png");
  await page.locator(".part.editor").click({ position: { x: 300, y: 300 } }).catch(() => undefined);
  await page.keyboard.press("Control+Alt+K"); // Compact Conversation… by its keybinding
  await page.locator(".quick-input-widget", { hasText: "Optional instructions" }).waitFor();
  await page.keyboard.press("Enter");
  const refusal = page.locator(".notification-toast", { hasText: "read-only here" });
  await refusal.first().waitFor();
  const refusalText = (await refusal.first().locator(".notification-list-item-message").innerText()).trim();
  step(`refusal (Ctrl+Alt+K on a read-only session): "${refusalText}"`);
  expect(!/OwnedByClaudeCode|SessionBusy|compact\/|compact-lsp/.test(refusalText) && /Import to continue/.test(refusalText), `the refusal is not in VS Code's words: ${refusalText}`);
  expect((await refusal.count()) === 1, "the refusal is shown more than once");
  await dismissToasts(page);
  await runCommand(page, "Show Context Usage");
  const figures = await webviewText(page, ".estimated-reported");
  step(`usage of Claude Code's session: "${figures}"`);
  expect(/^Estimated .* Reported .*/.test(figures), `estimated vs reported is not explained: ${figures}`);
  await page.keyboard.press("Control+W");
  await restored.locator("button", { hasText: "Import to continue" }).click();
  await restored.locator("#composer:not([hidden])").waitFor();
  await page.locator(".monaco-list-row", { hasText: /Add a CSV export.*current.*imported from Claude Code/ }).first().waitFor();
  step("Import to continue: a managed copy, current, with the chat's input");
  // The chat follows the user's own message even when scrolled up; the grep row shows the pattern.
  await restored.evaluate(() => window.scrollTo(0, 0));
  await send(restored, "Go on");
  await restored.locator(".entry.assistant", { hasText: "Picking up the imported session" }).waitFor();
  const grepRow = (await restored.locator(".entry.tool", { hasText: "grep" }).innerText()).trim();
  expect(grepRow.includes("def column_149 in src"), `the grep row does not show the pattern: ${grepRow}`);
  const height = await restored.evaluate(() => window.innerHeight);
  let own = null;
  const followed = await eventually(async () => {
    own = await restored.locator(".entry.user", { hasText: "Go on" }).last().boundingBox();
    return own !== null && own.y >= 0 && own.y < height;
  });
  expect(followed, `the chat did not follow the user's message: ${JSON.stringify(own)} in ${height}`);
  step(`the copy continued; the chat followed "Go on" from the top; grep row: "${grepRow}"`);

  // 12. Rename Session… from the tree's context menu: an input box holding the title; the tree shows the new one.
  await page.locator(".monaco-list-row", { hasText: /Add a CSV export.*current/ }).first().click({ button: "right" });
  await page.locator(".context-view .action-label", { hasText: "Rename Session…" }).hover();
  await page.keyboard.press("Enter");
  const renameBox = page.locator(".quick-input-widget input");
  await renameBox.waitFor();
  const prefilled = await renameBox.inputValue();
  expect(prefilled.startsWith("Add a CSV export"), `the rename box is not prefilled with the title: ${prefilled}`);
  await renameBox.fill("   ");
  await page.locator(".quick-input-message", { hasText: "Type a title." }).waitFor();
  await renameBox.fill("CSV export (continued)");
  await page.keyboard.press("Enter");
  await page.locator(".monaco-list-row", { hasText: /CSV export \(continued\).*current/ }).first().waitFor();
  await screenshot(page, "6-renamed");
  step(`renamed from the Sessions tree: "${prefilled}" → "CSV export (continued)"`);

  // 13. The session picker: titles with size and age, no raw ids.
  await runCommand(page, "Open Session in Chat…");
  await page.locator(".quick-input-widget .quick-input-title", { hasText: "Open a session in the chat" }).waitFor();
  const rows = page.locator(".quick-input-list .monaco-list-row");
  await rows.filter({ hasText: "CSV export (continued)" }).first().waitFor();
  const picker = (await rows.allInnerTexts()).map((row) => row.replace(/\s+/g, " ").trim());
  step(`session picker: ${picker.join(" | ")}`);
  expect(picker.every((row) => /tokens · .*(ago|just now|yesterday)/.test(row) && !/\b(ses|cc|claude)[-_][0-9a-f]/.test(row)), `the picker rows: ${picker.join(" | ")}`);
  await page.keyboard.press("Escape");

  // 13b. Codex's session, opened from the Sessions tree: Codex's (never Claude Code's), shown as its user saw it
  // (the request and the command, none of Codex's plumbing); Import to continue makes a copy with its own id that
  // takes input at once, and a reload lists it once beside Codex's, which stays read-only.
  await page.locator(".monaco-list-row", { hasText: "Explain the report columns" }).first().click();
  await restored.locator(".entry.assistant", { hasText: "Each column is a slice of the rows." }).waitFor();
  await restored.locator("#readonly:not([hidden])").waitFor();
  const owner = (await restored.locator("#readonly").innerText()).replace(/\s+/g, " ").trim();
  expect(/Codex's live session, read-only here/.test(owner) && !/Claude Code/.test(owner), `the read-only bar of Codex's session: ${owner}`);
  const codexTool = (await restored.locator(".entry.tool").last().innerText()).trim();
  expect(codexTool.includes("cat src/report.py") && !codexTool.includes('"cmd"'), `Codex's command row: ${codexTool}`);
  const codexChat = await restored.locator("#log").innerText();
  expect(!/environment_context|skills_instructions|Chunk ID/.test(codexChat), `Codex's plumbing is shown: ${codexChat}`);
  step(`Codex's session read-only, in Codex's words: "${owner.slice(0, 60)}…"; command row "${codexTool.split("\n")[0]}"`);
  await restored.locator("button", { hasText: "Import to continue" }).click();
  await restored.locator("#composer:not([hidden])").waitFor();
  await page.locator(".monaco-list-row", { hasText: /Explain the report columns.*current.*imported from Codex/ }).first().waitFor();
  await page.reload();
  await page.locator(".monaco-workbench").waitFor();
  restored = await webviewFrame(page, ".entry.assistant"); // the chat again, on the copy (now current)
  await page.locator(".monaco-list-row", { hasText: /Explain the report columns.*imported from Codex/ }).first().waitFor();
  const codexRows = (await page.locator(".monaco-list-row", { hasText: "Explain the report columns" }).allInnerTexts()).map((r) => r.replace(/\s+/g, " "));
  expect(codexRows.length === 2 && codexRows.filter((r) => /read-only/.test(r)).length === 1 && codexRows.some((r) => /Codex · read-only/.test(r)),
    `after a reload, Codex's session and the copy are not listed once each: ${codexRows.join(" | ")}`);
  step(`Import to continue on Codex's session: a copy that takes input; after a reload: ${codexRows.join(" | ")}`);

  // 14. Keybindings and high contrast: Ctrl+Alt+A puts the focus in the chat's input; the chat keeps its borders.
  await page.locator(".part.editor").click({ position: { x: 300, y: 300 } }).catch(() => undefined);
  await page.keyboard.press("Control+Alt+A");
  await restored.waitForFunction(() => document.activeElement?.id === "input");
  step("Ctrl+Alt+A focused the chat's input");
  dirs.changeSettings({ "workbench.colorTheme": "Default High Contrast" });
  await restored.waitForFunction(() => document.body.classList.contains("vscode-high-contrast"));
  const userBorder = await restored.locator(".entry.user").last().evaluate((e) => getComputedStyle(e).borderTopStyle);
  expect(userBorder === "solid", `the high-contrast chat has no borders: ${userBorder}`);
  await screenshot(page, "9-high-contrast", "vscode-high-contrast.png");
  step("high contrast: the chat follows the theme, with borders");

  // 15. A day of use, refusals and a restart included, leaves no error in the Compact output: what the user
  // would take for a crash (a traceback, an ERROR line, the extension's own [error]).
  const alarming = logLines(path.join(dirs.user, "logs"), "Compact.log").filter((line) => / ERROR |Traceback|\[error\]/.test(line));
  expect(alarming.length === 0, `the Compact output shows errors:\n${alarming.join("\n")}`);
  step("the Compact output has no error or traceback after the day of use");
  expect(stub.refused.length === 0, `the Messages API stub refused requests the real API would refuse:\n${stub.refused.join("\n")}`);
  const calls = stub.requests.length;
  step(`the day of use in ${((Date.now() - started) / 1000).toFixed(1)}s: ${before} → ${after}; ${notice}; ${calls} Messages API calls`);
}

main().catch((error) => {
  console.error(`FAIL: ${error instanceof Error ? error.stack : String(error)}`);
  console.error(`code-server log: e2e/.work/code-server-day.log; screenshots: e2e/.work/screens`);
  process.exit(1);
});
