// What the chat shows: Markdown rendered and sanitised, codicons, collapsible tool calls, inline approvals,
// compaction markers that name the summariser and a fallback, and a session restored from the server.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ChatTranscript } from "../model/chatModel";
import { EMPTY_TRANSCRIPT, addMarker, applyChatEvent, endTurn, requestApproval, resolveApproval, startTurn } from "../model/chatModel";
import { canShowDiff, parseChatViewRequest, renderTranscript } from "../model/chatPage";
import { transcriptFromMessages, transcriptFromRecords } from "../model/chatRestore";
import { describeMarker } from "../model/compactionText";
import { renderMarkdown } from "../model/markdown";

function transcript(...changes: ((t: ChatTranscript) => ChatTranscript)[]): ChatTranscript {
  return changes.reduce((t, change) => change(t), EMPTY_TRANSCRIPT);
}

describe("markdown", () => {
  test("headings, bold, lists, links and code fences are rendered, not shown raw", () => {
    const html = renderMarkdown("## Plan\n\n**bold** and `code`\n\n- one\n- two\n\n[docs](https://example.com)\n\n```py\nprint(1)\n```");
    assert.match(html, /<h2>Plan<\/h2>/);
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<code>code<\/code>/);
    assert.match(html, /<li>one<\/li>/);
    assert.match(html, /<a href="https:\/\/example.com" rel="noopener noreferrer">docs<\/a>/);
    assert.match(html, /<span class="lang">py<\/span>/);
    assert.match(html, /data-action="copy"/);
    assert.match(html, /<pre><code>print\(1\)\n<\/code><\/pre>/);
  });
  test("raw HTML is escaped and script links are not links", () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)> <script>x()</script> [click](javascript:alert(1))');
    assert.ok(!html.includes("<img"));
    assert.ok(!html.includes("<script"));
    assert.ok(!html.includes('href="javascript'));
    assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  });
  test("a wide table scrolls in its own box", () => {
    assert.match(renderMarkdown("| a | b |\n|---|---|\n| 1 | 2 |"), /<div class="table-wrap"><table>/);
  });
});

describe("tool calls", () => {
  const base = startTurn(EMPTY_TRANSCRIPT, "hi");
  const running = applyChatEvent(base, { sessionId: "s", kind: "tool_use", id: "t1", name: "read_file", input: { file_path: "a.py" } });
  test("a running tool spins a codicon (no emoji) and is collapsible", () => {
    const html = renderTranscript(running);
    assert.match(html, /<details class="entry tool running" data-key="tool-t1">/);
    assert.match(html, /codicon-loading codicon-modifier-spin/);
    assert.ok(!/[⏳✓✗]/.test(html));
  });
  test("a finished tool shows a check and keeps its result inside the collapsed details", () => {
    const done = applyChatEvent(running, { sessionId: "s", kind: "tool_result", toolUseId: "t1", name: "read_file", content: "x = 1", isError: false });
    const html = renderTranscript(done);
    assert.match(html, /<details class="entry tool done"[^>]*><summary><i class="codicon codicon-check"/);
    assert.match(html, /<pre class="tool-result">x = 1<\/pre><\/details>/);
  });
});

describe("approvals", () => {
  const edit = { file_path: "src/a.py", old_string: "a", new_string: "b" };
  const asked = transcript(
    (t) => startTurn(t, "rename"),
    (t) => applyChatEvent(t, { sessionId: "s", kind: "tool_use", id: "t9", name: "edit_file", input: edit }),
    (t) => requestApproval(t, "approval-1", "The agent wants to edit src/a.py\n\n- a\n+ b"),
  );
  test("a prompt belongs to the running tool call and offers the three answers and Show diff", () => {
    const entry = asked.entries[2];
    assert.equal(entry.kind, "approval");
    assert.equal(entry.kind === "approval" && entry.toolUseId, "t9");
    const html = renderTranscript(asked);
    for (const title of ["Allow once", "Allow for this session", "Deny"]) {
      assert.match(html, new RegExp(`data-action="approve" data-id="approval-1" data-decision="${title}"`));
    }
    assert.match(html, /data-action="diff" data-id="approval-1"/);
    assert.match(html, /<pre class="approval-detail">- a\n\+ b<\/pre>/);
  });
  test("the chat says it waits for the user, not only 'Working…'", () => {
    assert.match(renderTranscript(asked), /Waiting for your approval…/);
  });
  test("an answer replaces the buttons with what was decided", () => {
    const html = renderTranscript(resolveApproval(asked, "approval-1", "Deny"));
    assert.ok(!html.includes('data-action="approve"'));
    assert.match(html, /Denied/);
  });
  test("a turn that ends with the prompt open marks it unanswered", () => {
    const ended = endTurn(asked, { stopReason: "cancelled" });
    assert.match(renderTranscript(ended), /Not answered \(denied\)/);
  });
  test("Show diff only for edits and writes with what the diff needs", () => {
    assert.equal(canShowDiff("edit_file", edit), true);
    assert.equal(canShowDiff("write_file", { file_path: "b.py", content: "" }), true);
    assert.equal(canShowDiff("run_shell_command", { command: "ls" }), false);
    assert.equal(canShowDiff("edit_file", { file_path: "a.py" }), false);
  });
  test("the webview's answers are checked", () => {
    assert.deepEqual(parseChatViewRequest({ type: "approve", id: "approval-1", decision: "Allow once" }), {
      type: "approve", id: "approval-1", decision: "Allow once",
    });
    assert.equal(parseChatViewRequest({ type: "approve", id: "approval-1", decision: "Allow forever" }), undefined);
    assert.deepEqual(parseChatViewRequest({ type: "diff", id: "approval-1" }), { type: "diff", id: "approval-1" });
  });
});

describe("compaction markers", () => {
  const cases: [string, Parameters<typeof describeMarker>[0], string][] = [
    ["auto-model", { compaction: "full", trigger: "auto", tokensBefore: 150000, tokensAfter: 20000, summarizer: "anthropic" },
      "Conversation compacted automatically: 150k → 20k (−130k) · summary by the model"],
    ["fallback-named", { compaction: "full", trigger: "auto", tokensBefore: 150000, tokensAfter: 21000, summarizer: "offline", fallback: true, fallbackReason: "overloaded: API error 529" },
      "Conversation compacted automatically: 150k → 21k (−129k) · offline summary, because the model failed: overloaded: API error 529"],
    ["manual-session-notes", { compaction: "full", trigger: "manual", tokensBefore: 40000, tokensAfter: 6000, summarizer: "session-memory" },
      "Conversation compacted: 40k → 6k (−34k) · summary from the session notes (no model call)"],
    // an agent's own compaction in an imported copy: its figures are not known, none are made up
    ["agent-own", { compaction: "full", trigger: "auto", tokensBefore: 0, tokensAfter: 0, summarizer: "agent" },
      "Conversation compacted by the agent · its own summary"],
    // in its followed session: the figures and trigger its transcript recorded (Codex's rollout, Claude Code's boundary)
    ["agent-auto-figures", { compaction: "full", trigger: "auto", tokensBefore: 90020, tokensAfter: 4000, summarizer: "agent" },
      "Conversation compacted by the agent automatically: 90k → 4k (−86k) · its own summary"],
    ["agent-manual-figures", { compaction: "full", trigger: "manual", tokensBefore: 17890, tokensAfter: 7439, summarizer: "agent" },
      "Conversation compacted by the agent when asked: 17.9k → 7.4k (−10.5k) · its own summary"],
    ["micro", { compaction: "micro", trigger: "size", tokensBefore: 50000, tokensAfter: 30000, cleared: 3 },
      "3 old tool results cleared (on size): 50k → 30k (−20k)"],
  ];
  for (const [id, marker, text] of cases) {
    test(id, () => assert.equal(describeMarker(marker), text));
  }
  test("what came before a boundary is dimmed: the model only has the summary", () => {
    const t = transcript(
      (x) => startTurn(x, "old question"),
      (x) => endTurn(x, { stopReason: "end_turn" }),
      (x) => addMarker(x, { kind: "marker", compaction: "full", trigger: "auto", tokensBefore: 9, tokensAfter: 3 }),
      (x) => startTurn(x, "new question"),
    );
    const html = renderTranscript(t);
    assert.match(html, /<div class="compacted-away"[^>]*><div class="entry user">old question<\/div><\/div>/);
    assert.match(html, /<div class="entry user">new question<\/div>/);
    assert.ok(!html.includes('compacted-away" title="Summarised: the model no longer sees this"><div class="entry user">new'));
  });
});

describe("a session restored from the server", () => {
  const messages = [
    { role: "user" as const, content: "What is in data.py?" },
    { role: "assistant" as const, content: [{ type: "text", text: "Let me look." }, { type: "tool_use", id: "t1", name: "read_file", input: { file_path: "src/data.py" } }] },
    { role: "user" as const, content: [{ type: "tool_result", tool_use_id: "t1", content: "def f(): pass" }] },
    { role: "assistant" as const, content: [{ type: "text", text: "It defines **f**." }] },
  ];
  test("messages come back as the chat showed them", () => {
    const t = transcriptFromMessages(messages);
    assert.deepEqual(t.entries.map((e) => e.kind), ["user", "assistant", "tool", "assistant"]);
    const tool = t.entries[2];
    assert.equal(tool.kind === "tool" && tool.state, "done");
    assert.equal(tool.kind === "tool" && tool.result, "def f(): pass");
    assert.match(renderTranscript(t), /It defines <strong>f<\/strong>/);
  });
  test("transcript records keep the compaction boundary and the clearing as markers", () => {
    const t = transcriptFromRecords([
      { kind: "message", message: messages[0] },
      { kind: "microcompaction", trigger: "size", tokensBefore: 50000, tokensAfter: 30000, cleared: [{}, {}] },
      { kind: "compaction", trigger: "auto", tokensBefore: 150000, tokensAfter: 20000, summarizer: "offline", fallback: true, fallbackReason: "no API key" },
      { kind: "message", message: messages[3] },
      { kind: "undo", boundaryId: "cmp_1" },
      { kind: "something-new" },
      "junk",
    ]);
    assert.deepEqual(t.entries.map((e) => e.kind), ["user", "marker", "marker", "assistant", "marker"]);
    const html = renderTranscript(t);
    assert.match(html, /2 old tool results cleared \(on size\)/);
    assert.match(html, /offline summary, because the model failed: no API key/);
    assert.match(html, /Compaction undone: 20k → 150k \(\+130k\)</); // its figures, after a reload too
  });
  test("an agent's compaction whose copy recorded no trigger or figures (null) says none", () => {
    const t = transcriptFromRecords([
      { kind: "compaction", trigger: null, tokensBefore: null, tokensAfter: null, summarizer: "agent", fallback: false, summary: "s" },
      { kind: "compaction", trigger: "auto", tokensBefore: 900000, tokensAfter: null, summarizer: "agent", fallback: false, summary: "s" },
    ]);
    const html = renderTranscript(t);
    assert.equal(html.split("Conversation compacted by the agent · its own summary").length - 1, 2);
    assert.ok(!/NaN|→ 0|null/.test(html), html);
  });
});

test("after an undo the restored messages are not dimmed, and a reload keeps the undo marker's figures", () => {
  const records = [
    { kind: "message", message: { role: "user", content: "First question" } },
    { kind: "message", message: { role: "assistant", content: [{ type: "text", text: "First answer" }] } },
    { kind: "compaction", trigger: "manual", summarizer: "offline", fallback: false, tokensBefore: 35800, tokensAfter: 5000, summary: "s" },
    { kind: "undo", boundaryId: "cmp_1" },
    { kind: "message", message: { role: "user", content: "Second question" } },
  ];
  const transcript = transcriptFromRecords(records);
  const html = renderTranscript(transcript);
  assert.ok(!html.includes("compacted-away"), html); // back in context: nothing dimmed
  const undo = transcript.entries.find((entry) => entry.kind === "marker" && entry.compaction === "undo");
  assert.ok(undo !== undefined && undo.kind === "marker");
  assert.equal(describeMarker(undo), "Compaction undone: 5k → 35.8k (+30.8k)");
  // a compaction after the undo dims what is above it again
  const again = transcriptFromRecords([...records, { ...records[2], tokensBefore: 36000, tokensAfter: 5100 }]);
  assert.ok(renderTranscript(again).includes("compacted-away"));
});
