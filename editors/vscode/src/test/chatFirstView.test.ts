// What a new user meets in the chat: the welcome, a read-only session without input, the approval's diff above
// nothing but its buttons, links that open files at their line, @file mentions that attach the file.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { approvalDiff } from "../model/approvalDiff";
import { EMPTY_TRANSCRIPT, attachDiff, requestApproval } from "../model/chatModel";
import type { ChatTranscript } from "../model/chatModel";
import {
  OPEN_ELSEWHERE_TEXT,
  openElsewhereMessage,
  renderChatShell,
  parseChatViewRequest,
  restrictedMessage,
  serverNotStartedMessage,
  transcriptMessage,
} from "../model/chatPage";
import { linkTarget } from "../model/fileLinks";
import { mentionedPaths, splitAttachments, withAttachments } from "../model/mentions";

const FILE = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("a session another window writes", () => {
  test("shows its chat with no input, says where to go on in plain words, and offers New Chat", () => {
    const chat: ChatTranscript = { ...EMPTY_TRANSCRIPT, entries: [{ kind: "user", text: "What does a.py do?" }, { kind: "assistant", text: "a0." }] };
    const message = openElsewhereMessage(chat);
    assert.equal(message.restricted, true, "no input");
    assert.ok(message.html.includes("What does a.py do?"), "the chat itself is shown");
    assert.ok(message.html.includes(OPEN_ELSEWHERE_TEXT));
    assert.doesNotMatch(OPEN_ELSEWHERE_TEXT, /process|SessionBusy|compact\//);
    assert.ok(message.html.includes('data-id="compact.newChat"'));
    assert.deepEqual(parseChatViewRequest({ type: "command", id: "compact.newChat" }), { type: "command", command: "compact.newChat" });
  });
});

describe("a server that did not start", () => {
  test("the chat says why in place of an input nothing would answer, with the ways on", () => {
    const message = serverNotStartedMessage("compactLsp.server.command is /x, which does not exist (ENOENT).", "compactLsp.server.command");
    assert.equal(message.restricted, true, "no input");
    assert.match(message.html, /<h2>Compact's server did not start<\/h2>/);
    assert.match(message.html, /compactLsp\.server\.command is \/x, which does not exist/);
    for (const command of ["workbench.action.openSettings", "compact.restartServer", "compact.showServerLog"]) {
      assert.ok(message.html.includes(`data-id="${command}"`), command);
      assert.deepEqual(parseChatViewRequest({ type: "command", id: command }), { type: "command", command });
    }
    assert.ok(!serverNotStartedMessage("no setting at fault").html.includes("openSettings"), "Open Settings only for a setting");
  });
});

describe("the approval's diff", () => {
  test("is a unified diff with three lines of context, not the whole file removed and added", () => {
    const diff = approvalDiff("edit_file", { file_path: "a.py", old_string: "line 10\n", new_string: "line ten\n" }, FILE);
    assert.ok(diff !== undefined);
    assert.deepEqual(diff.lines, ["@@ -7,7 +7,7 @@", " line 7", " line 8", " line 9", "-line 10", "+line ten", " line 11", " line 12", " line 13"]);
    assert.equal(diff.added, 1);
    assert.equal(diff.removed, 1);
  });
  test("a new file is all additions; an edit that cannot apply says so", () => {
    const created = approvalDiff("write_file", { file_path: "new.py", content: "x = 1\n" }, undefined);
    assert.deepEqual(created?.lines, ["@@ -0,0 +1,1 @@", "+x = 1"]);
    const stale = approvalDiff("edit_file", { file_path: "a.py", old_string: "gone", new_string: "x" }, FILE);
    assert.match(stale?.problem ?? "", /not in the file/);
  });
  test("a file with unsaved changes in an editor is named before the decision, above the diff", () => {
    const asked = requestApproval(
      { ...EMPTY_TRANSCRIPT, busy: true, entries: [] },
      "approval-1",
      "The agent wants to edit a.py",
    );
    const diff = approvalDiff("edit_file", { file_path: "a.py", old_string: "line 10\n", new_string: "line ten\n" }, FILE)!;
    const clean = transcriptMessage(attachDiff(asked, "approval-1", diff)).html;
    assert.ok(!clean.includes("unsaved"), "a saved file is not said to have unsaved changes");
    const html = transcriptMessage(attachDiff(asked, "approval-1", { ...diff, unsaved: "src/a.py" })).html;
    const said = html.indexOf("src/a.py has unsaved changes in its editor");
    assert.ok(said > html.indexOf('data-decision="Allow once"') && said < html.indexOf('class="diff-line del"'));
    assert.match(html, /not your unsaved text; you then choose which version to keep/);
  });
  test("the buttons come before the diff, so they are in view", () => {
    const asked = requestApproval(
      { ...EMPTY_TRANSCRIPT, busy: true, entries: [{ kind: "tool", id: "t1", name: "edit_file", summary: "a.py", state: "running", result: "", input: { file_path: "a.py", old_string: "line 10\n", new_string: "line ten\n" } }] },
      "approval-1",
      "The agent wants to edit a.py\n\n- line 10\n+ line ten",
    );
    const diff = approvalDiff("edit_file", { file_path: "a.py", old_string: "line 10\n", new_string: "line ten\n" }, FILE);
    const html = transcriptMessage(attachDiff(asked, "approval-1", diff!)).html;
    const buttons = html.indexOf('data-decision="Allow once"');
    const change = html.indexOf('class="diff-line del"');
    assert.ok(buttons > 0 && change > buttons, "Allow/Deny are above the diff");
    assert.ok(html.includes('<span class="diff-line ctx"> line 9</span>'), "context lines are shown");
    assert.ok(!html.includes("approval-detail"), "the server's preview gives way to the diff");
  });
});

describe("the first view", () => {
  test("an empty chat welcomes, says how to attach files and offers the walkthrough", () => {
    const html = transcriptMessage(EMPTY_TRANSCRIPT).html;
    assert.match(html, /Ask the agent about this workspace/);
    assert.match(html, /@src\/app\.py/);
    assert.match(html, /data-id="compact\.openWalkthrough"/);
  });
  test("a read-only session has no input; Restricted Mode says why and how to trust", () => {
    const codex = transcriptMessage(EMPTY_TRANSCRIPT, "Codex");
    assert.equal(codex.readOnly, true);
    assert.equal(codex.owner, "Codex");
    assert.equal(transcriptMessage(EMPTY_TRANSCRIPT).readOnly, false);
    const restricted = restrictedMessage();
    assert.equal(restricted.restricted, true);
    assert.match(restricted.html, /Restricted Mode/);
    assert.match(restricted.html, /data-id="workbench\.trust\.manage"/);
  });
  test("a compaction marker opens its summary; the webview may run only the welcome's commands", () => {
    const t: ChatTranscript = {
      ...EMPTY_TRANSCRIPT,
      entries: [{ kind: "marker", compaction: "full", trigger: "manual", tokensBefore: 26206, tokensAfter: 20116, summarizer: "anthropic" }],
    };
    const html = transcriptMessage(t).html;
    assert.match(html, /data-action="summary" data-id="0"/);
    assert.match(html, /26\.2k → 20\.1k/);
    assert.deepEqual(parseChatViewRequest({ type: "summary", id: "0" }), { type: "summary", index: 0 });
    assert.equal(parseChatViewRequest({ type: "command", id: "workbench.action.terminal.new" }), undefined);
    assert.deepEqual(parseChatViewRequest({ type: "command", id: "compact.setApiKey" }), { type: "command", command: "compact.setApiKey" });
  });
  test("the session's title shows once: in the view's title bar, not again at the top of the chat", () => {
    const shell = renderChatShell({ cspSource: "vscode-webview:", nonce: "n" });
    assert.doesNotMatch(shell, /id="title"|chat-title/);
    const chat: ChatTranscript = { ...EMPTY_TRANSCRIPT, entries: [{ kind: "assistant", text: "a0." }] };
    for (const message of [transcriptMessage(chat), openElsewhereMessage(chat), restrictedMessage(), serverNotStartedMessage("x")]) {
      assert.ok(!("title" in message), `a title the webview would draw again: ${JSON.stringify(message).slice(0, 80)}`);
    }
  });
  test("a compaction in progress shows in the chat", () => {
    assert.match(transcriptMessage(EMPTY_TRANSCRIPT, undefined, "Compacting conversation…").html, /activity.*Compacting conversation…/);
  });
});

describe("links in answers", () => {
  const cases: [string, string, unknown][] = [
    ["relative", "src/data.py", { kind: "file", path: "src/data.py" }],
    ["github-anchor", "src/data.py#L12", { kind: "file", path: "src/data.py", line: 12 }],
    ["range", "src/data.py#L12-L20", { kind: "file", path: "src/data.py", line: 12, endLine: 20 }],
    ["colon-line-column", "src/data.py:12:5", { kind: "file", path: "src/data.py", line: 12, column: 5 }],
    ["file-uri", "file:///work/a%20b.py#L3", { kind: "file", path: "/work/a b.py", line: 3 }],
    ["web", "https://example.com/x", { kind: "external", url: "https://example.com/x" }],
    ["command-uri-refused", "command:workbench.action.terminal.new", undefined],
    ["javascript-refused", "javascript:alert(1)", undefined],
    ["bare-anchor", "#section", undefined],
  ];
  for (const [id, href, expected] of cases) {
    test(id, () => assert.deepEqual(linkTarget(href), expected));
  }
});

describe("@file mentions", () => {
  test("are found where a word starts, each once; e-mail addresses are not mentions", () => {
    assert.deepEqual(mentionedPaths("look at @src/data.py and @main.py, then @src/data.py; mail me@example.com"), ["src/data.py", "main.py"]);
  });
  test("the input asks for suggestions with what follows the @, bounded", () => {
    assert.deepEqual(parseChatViewRequest({ type: "mention", text: "src/ma" }), { type: "mention", query: "src/ma" });
    assert.equal(parseChatViewRequest({ type: "mention", text: "x".repeat(201) }), undefined);
  });
  test("attach the file after the words, and the chat splits them back into a chip", () => {
    const sent = withAttachments("Explain @src/data.py", [{ path: "src/data.py", content: "def f():\n    pass\n" }]);
    assert.match(sent, /^Explain @src\/data\.py\n\n<attached_file path="src\/data\.py">\ndef f\(\):\n    pass\n<\/attached_file>$/);
    assert.deepEqual(splitAttachments(sent), { text: "Explain @src/data.py", files: [{ path: "src/data.py", content: "def f():\n    pass" }] });
    const html = transcriptMessage({ ...EMPTY_TRANSCRIPT, entries: [{ kind: "user", text: sent }] }).html;
    assert.match(html, /class="attachment".*src\/data\.py/);
    assert.doesNotMatch(html, /&lt;attached_file/);
  });
});
