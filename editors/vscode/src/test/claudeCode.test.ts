// Claude Code beside ours: its sessions marked read-only in the Sessions tree, and the hook's palette command.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CODEX, describeHookChange, GEMINI_CLI, hookChoices, QWEN_CODE } from "../model/claudeCodeHook";
import { chatDescription, pickerItem, sessionDescription, sessionIcon, sessionTooltip } from "../model/sessions";
import { sessionInfo } from "./fixtures";

const now = new Date("2026-11-30T08:03:00Z");
const claude = sessionInfo({ sessionId: "claude-7acd", title: "refactor the parser", source: "claude-code", readOnly: true });
const ours = sessionInfo();

describe("Claude Code's sessions in the Sessions tree", () => {
  test("are marked Claude Code and read-only, ours are not", () => {
    assert.match(sessionDescription(claude, false, now), /· Claude Code · read-only$/);
    assert.doesNotMatch(sessionDescription(ours, false, now), /read-only|Claude Code/);
  });
  test("the tooltip says Claude Code owns the context and that the gauge can follow it", () => {
    const tooltip = sessionTooltip(claude, false);
    assert.match(tooltip, /read-only here: Claude Code owns its context/);
    assert.match(tooltip, /Import to continue/);
    assert.doesNotMatch(sessionTooltip(ours, false), /read-only/);
  });
  test("have their own icon, current or not", () => {
    assert.equal(sessionIcon(claude, false), "lock");
    assert.equal(sessionIcon(claude, true), "eye");
    assert.equal(sessionIcon(ours, false), "comment");
    assert.equal(sessionIcon(ours, true), "comment-discussion");
  });
  test("the session picker shows title, size and age, and where a session comes from; never a raw id", () => {
    const row = pickerItem({ ...claude, tokens: 26206, messages: 12, updatedAt: "2026-11-30T08:00:00Z" }, false, now);
    assert.equal(row.label, "$(lock) refactor the parser");
    assert.equal(row.description, "26.2k tokens · 12 messages · 3 min ago");
    assert.equal(row.detail, "Claude Code, read-only");
    const untitled = pickerItem({ ...ours, title: "" }, true, now);
    assert.ok(!`${untitled.label} ${untitled.description}`.includes(ours.sessionId), untitled.label);
    assert.match(untitled.description, /^current · /);
  });
});

describe("Any agent's followed sessions are named by the server's owner", () => {
  const codex = sessionInfo({ sessionId: "codex-01a2", title: "explain main.py", source: "codex", readOnly: true, owner: "Codex" });
  // a newer server's agent, whose source this extension does not know: named by the server's owner
  const qwen = sessionInfo({ sessionId: "qwen-9f", title: "fix the test", source: "qwen-code" as never, readOnly: true, owner: "Qwen Code" });
  test("in the tree, its tooltip and the picker: Codex's is Codex's, never Claude Code's", () => {
    assert.match(sessionDescription(codex, false, now), /· Codex · read-only$/);
    assert.match(sessionTooltip(codex, false), /Codex's session, read-only here: Codex owns its context.*Import to continue/);
    assert.doesNotMatch(sessionTooltip(codex, false), /Claude Code/);
    assert.equal(pickerItem(codex, false, now).detail, "Codex, read-only");
  });
  test("an agent the extension does not know by name is named as the server names it", () => {
    assert.match(sessionDescription(qwen, false, now), /· Qwen Code · read-only$/);
    assert.match(sessionTooltip(qwen, false), /Qwen Code owns its context/);
    assert.equal(pickerItem(qwen, false, now).detail, "Qwen Code, read-only");
  });
  test("an imported copy is the user's: imported, not an agent's", () => {
    const copy = sessionInfo({ sessionId: "cx-01a2", title: "explain main.py", source: "import" });
    assert.equal(pickerItem(copy, false, now).detail, "imported");
    assert.doesNotMatch(sessionDescription(copy, false, now), /read-only|Codex/);
  });
  test("a copy the server says came from Codex reads so in the tree, its tooltip, the picker and the chat's header", () => {
    const copy = sessionInfo({ sessionId: "cx-01a2", title: "explain main.py", source: "import", importedFrom: "Codex" });
    assert.match(sessionDescription(copy, true, now), /^current · .* · imported from Codex$/);
    assert.doesNotMatch(sessionDescription(copy, true, now), /read-only/); // the user's copy takes input
    assert.match(sessionTooltip(copy, false), /Imported from Codex: your copy to work on; its earlier answers are Codex's\./);
    assert.equal(pickerItem(copy, false, now).detail, "imported from Codex");
    assert.equal(chatDescription("explain main.py", undefined, "Codex"), "explain main.py (imported from Codex)");
    assert.equal(chatDescription("explain main.py", "Codex", undefined), "explain main.py (read-only)"); // Codex's own
    assert.equal(chatDescription("my chat", undefined, undefined), "my chat");
  });
});

describe("Install the Claude Code Hook", () => {
  test("offers this project and all projects, and removing either", () => {
    assert.deepEqual(
      hookChoices(true).map((c) => c.argument),
      [{ scope: "project" }, { scope: "user" }, { scope: "project", uninstall: true }, { scope: "user", uninstall: true }],
    );
    assert.equal(hookChoices(true)[0]?.label, "This project");
    assert.equal(hookChoices(true)[1]?.label, "All projects");
  });
  test("without a workspace folder only all projects", () => {
    assert.deepEqual(hookChoices(false).map((c) => c.argument.scope), ["user", "user"]);
  });
  test("says what the server did, with the backup", () => {
    const installed = describeHookChange(
      { changed: true, path: "/w/.claude/settings.local.json", backup: "/w/.claude/settings.local.json.bak", message: "installed the compact-lsp hook in /w/.claude/settings.local.json" },
      false,
    );
    assert.equal(installed.severity, "info");
    assert.equal(
      installed.text,
      "Installed the compact-lsp hook in /w/.claude/settings.local.json. The previous file is kept as /w/.claude/settings.local.json.bak. Claude Code runs it after its next compaction.",
    );
    const already = describeHookChange({ changed: false, path: "/p", backup: null, message: "the hook is already installed in /p" }, false);
    assert.equal(already.text, "The hook is already installed in /p.");
    const removed = describeHookChange({ changed: true, path: "/p", backup: "/p.bak", message: "removed the compact-lsp hook from /p" }, true);
    assert.equal(removed.text, "Removed the compact-lsp hook from /p. The previous file is kept as /p.bak.");
  });
});

describe("Install the Codex Hook", () => {
  test("names Codex's files and keeps the server's advice to trust the hook", () => {
    assert.deepEqual(
      hookChoices(true, CODEX).map((c) => c.detail),
      [".codex/config.toml (read in trusted projects)", "~/.codex/config.toml", ".codex/config.toml (read in trusted projects)", "~/.codex/config.toml"],
    );
    const installed = describeHookChange(
      { changed: true, path: "/h/config.toml", backup: null, message: "installed the compact-lsp hook in /h/config.toml. Codex runs a new or changed hook only after you trust it: type /hooks (once)." },
      false,
      CODEX,
    );
    assert.equal(installed.text, "Installed the compact-lsp hook in /h/config.toml. Codex runs a new or changed hook only after you trust it: type /hooks (once).");
  });
});

describe("Install the Qwen Code Hook", () => {
  test("names Qwen Code's files and says when its model first sees our context", () => {
    assert.deepEqual(
      hookChoices(true, QWEN_CODE).map((c) => c.detail),
      [".qwen/settings.json", "~/.qwen/settings.json", ".qwen/settings.json", "~/.qwen/settings.json"],
    );
    const installed = describeHookChange(
      { changed: true, path: "/w/.qwen/settings.json", backup: null, message: "installed the compact-lsp hook in /w/.qwen/settings.json. Qwen Code runs it after each compaction: after /compress its next request carries our context; after an automatic compaction Qwen does not wait for the hook, so the request after that one does" },
      false,
      QWEN_CODE,
    );
    assert.equal(
      installed.text,
      "Installed the compact-lsp hook in /w/.qwen/settings.json. Qwen Code runs it after each compaction: after /compress its next request carries our context; after an automatic compaction Qwen does not wait for the hook, so the request after that one does.",
    );
  });
});

describe("Install the Gemini CLI Hook", () => {
  test("names Gemini CLI's files", () => {
    assert.deepEqual(
      hookChoices(true, GEMINI_CLI).map((c) => c.detail),
      [".gemini/settings.json", "~/.gemini/settings.json", ".gemini/settings.json", "~/.gemini/settings.json"],
    );
    assert.deepEqual(hookChoices(false, GEMINI_CLI).map((c) => c.detail), ["~/.gemini/settings.json", "~/.gemini/settings.json"]);
  });
});
