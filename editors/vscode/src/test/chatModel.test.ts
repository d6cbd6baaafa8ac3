import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { approvalDiff } from "../model/approvalDiff";
import type { ApprovalState, ChatTranscript } from "../model/chatModel";
import {
  CANCELLED_TEXT,
  EMPTY_TRANSCRIPT,
  applyChatEvent,
  attachDiff,
  cancelTurn,
  endTurn,
  refuseTurn,
  requestApproval,
  resolveApproval,
  startTurn,
  summariseInput,
} from "../model/chatModel";
import { parseChatViewRequest, renderTranscript, transcriptMessage } from "../model/chatPage";
import { transcriptFromMessages } from "../model/chatRestore";
import { linkTarget } from "../model/fileLinks";
import type { ChatEvent } from "../protocol";
import { usage } from "./fixtures";

/** Events as a test writes them: loose on purpose, to show the model copes with fields a server left out. */
type Ev = { kind: ChatEvent["kind"] } & Record<string, unknown>;

function play(events: Ev[], from: ChatTranscript = startTurn(EMPTY_TRANSCRIPT, "hi")): ChatTranscript {
  return events.reduce((t, e) => applyChatEvent(t, { sessionId: "ses_1", ...e } as ChatEvent), from);
}

test("streamed text deltas join into one assistant message", () => {
  const t = play([
    { kind: "text", text: "Reading " },
    { kind: "text", text: "the file" },
    { kind: "text", text: "…" },
  ]);
  assert.deepEqual(t.entries, [
    { kind: "user", text: "hi" },
    { kind: "assistant", text: "Reading the file…" },
  ]);
  assert.equal(t.busy, true);
});

test("a tool call is shown running, then with its result", () => {
  const running = play([{ kind: "tool_use", id: "toolu_1", name: "read_file", input: { file_path: "src/app.py" } }]);
  assert.deepEqual(running.entries[1], {
    kind: "tool", id: "toolu_1", name: "read_file", summary: "src/app.py", state: "running", result: "",
    input: { file_path: "src/app.py" },
  });
  const done = play([{ kind: "tool_result", toolUseId: "toolu_1", content: "print(1)" }], running);
  assert.equal(done.entries.length, 2);
  assert.deepEqual(done.entries[1], {
    kind: "tool", id: "toolu_1", name: "read_file", summary: "src/app.py", state: "done", result: "print(1)",
    input: { file_path: "src/app.py" },
  });
});

test("text after a tool call starts a new assistant message", () => {
  const t = play([
    { kind: "text", text: "Let me look." },
    { kind: "tool_use", id: "t1", name: "grep", input: { pattern: "TODO" } },
    { kind: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "a.py:3: TODO" }] },
    { kind: "text", text: "One TODO." },
  ]);
  assert.deepEqual(
    t.entries.map((e) => e.kind),
    ["user", "assistant", "tool", "assistant"],
  );
});

describe("tool results", () => {
  const cases: [string, Ev, string, string][] = [
    ["denied", { kind: "tool_result", toolUseId: "t1", content: "The user denied this edit.", isError: true }, "error", "The user denied this edit."],
    ["blocks-joined", { kind: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, "done", "a\nb"],
    ["long-output-shortened", { kind: "tool_result", toolUseId: "t1", content: "x".repeat(1000) }, "done", `${"x".repeat(399)}…`],
    ["many-lines-cut", { kind: "tool_result", toolUseId: "t1", content: Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n") }, "done",
      "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\n… 34 more lines"],
  ];
  for (const [id, event, state, result] of cases) {
    test(id, () => {
      const t = play([{ kind: "tool_use", id: "t1", name: "edit_file", input: { file_path: "a.py" } }, event]);
      const entry = t.entries[1];
      assert.equal(entry.kind, "tool");
      assert.equal(entry.kind === "tool" && entry.state, state);
      assert.equal(entry.kind === "tool" && entry.result, result);
    });
  }
});

test("status lines replace each other and vanish when the turn ends", () => {
  const t = play([
    { kind: "status", text: "Waiting for the model…" },
    { kind: "status", text: "Compacting the conversation…" },
  ]);
  assert.equal(t.status, "Compacting the conversation…");
  assert.match(renderTranscript(t), /Compacting the conversation…/);
  const ended = endTurn(t, { stopReason: "end_turn" });
  assert.equal(ended.status, undefined);
  assert.equal(ended.busy, false);
});

test("an error event is shown and the turn's end reports the context size", () => {
  const t = endTurn(play([{ kind: "error", message: "API error 529: overloaded" }]), {
    stopReason: "error",
    usage: usage(),
  });
  assert.deepEqual(
    t.entries.slice(1).map((e) => ("text" in e ? e.text : "")),
    ["API error 529: overloaded", "Context: 48.2k / 200k (24%)"],
  );
});

test("an error result without an error event still says why", () => {
  const t = endTurn(play([]), { stopReason: "error", error: "authentication failed: check the API key" });
  assert.deepEqual(t.entries[1], { kind: "error", text: "authentication failed: check the API key" });
});

test("a turn stopped at the round limit says so", () => {
  const t = endTurn(play([]), { stopReason: "max_rounds" });
  assert.deepEqual(t.entries[1], { kind: "notice", text: "Stopped: max rounds." });
});

test("a turn that fails leaves no tool spinning", () => {
  const t = endTurn(play([{ kind: "tool_use", id: "t1", name: "grep", input: {} }]), undefined, "API error 529: overloaded");
  assert.deepEqual(t.entries[1], {
    kind: "tool", id: "t1", name: "grep", summary: "{}", state: "error", result: "(no result)", input: {},
  });
  assert.deepEqual(t.entries[2], { kind: "error", text: "API error 529: overloaded" });
});

test("a turn refused before it began takes the message back out of the chat and says why", () => {
  const t = refuseTurn(startTurn(play([{ kind: "text", text: "earlier answer" }]), "Hello from window two"), "Open in another window.");
  assert.ok(!t.entries.some((e) => e.kind === "user" && e.text === "Hello from window two"));
  assert.deepEqual(t.entries.at(-1), { kind: "notice", text: "Open in another window." });
  assert.equal(t.busy, false);
});

test("a turn the user stopped says cancelled as a notice, not an error, and leaves no tool spinning", () => {
  for (const t of [cancelTurn(play([{ kind: "tool_use", id: "t1", name: "grep", input: {} }])), endTurn(play([]), { stopReason: "cancelled" })]) {
    assert.ok(!t.entries.some((e) => e.kind === "error"));
    assert.ok(!t.entries.some((e) => e.kind === "tool" && e.state === "running"));
    assert.deepEqual(t.entries.at(-1), { kind: "notice", text: CANCELLED_TEXT });
    assert.equal(t.busy, false);
  }
});

test("what the model or a tool says is escaped, never run as HTML", () => {
  const t = play([
    { kind: "text", text: "<img src=x onerror=alert(1)>" },
    { kind: "tool_use", id: "t1", name: "read_file", input: { file_path: "<b>.py" } },
  ]);
  const html = transcriptMessage(t).html;
  assert.ok(!html.includes("<img"));
  assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;"));
  assert.ok(html.includes("&lt;b&gt;.py"));
});

describe("tool input summaries", () => {
  const cases: [string, unknown, string][] = [
    ["path", { file_path: "src/app.py", offset: 10 }, "src/app.py"],
    ["pattern", { pattern: "def main", path: undefined }, "def main"],
    ["grep-pattern-before-path", { pattern: "TODO", path: "src" }, "TODO in src"],
    ["other-json", { title: "x" }, '{"title":"x"}'],
    ["none", undefined, ""],
  ];
  for (const [id, input, expected] of cases) {
    test(id, () => assert.equal(summariseInput(input), expected));
  }
});

describe("messages from the webview", () => {
  const cases: [string, unknown, unknown][] = [
    ["send-trimmed", { type: "send", text: "  hello \n" }, { type: "send", text: "hello" }],
    ["send-blank-ignored", { type: "send", text: "   " }, undefined],
    ["stop", { type: "stop" }, { type: "stop" }],
    ["unknown", { type: "eval", code: "x" }, undefined],
    ["not-an-object", "send", undefined],
  ];
  for (const [id, raw, expected] of cases) {
    test(id, () => assert.deepEqual(parseChatViewRequest(raw), expected));
  }
});

describe("the edited-file row after an approved edit", () => {
  const FILE = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("");
  const input = { file_path: "src/data.py", old_string: "line 10\n", new_string: "line ten\nline ten and a half\n" };

  function approved(state: ApprovalState, before: string = FILE): ChatTranscript {
    let t = play([{ kind: "tool_use", id: "toolu_e", name: "edit_file", input }]);
    t = requestApproval(t, "ap_1", "Edit src/data.py?");
    const diff = approvalDiff("edit_file", input, before);
    assert.ok(diff !== undefined);
    t = attachDiff(t, "ap_1", diff);
    return resolveApproval(t, "ap_1", state);
  }

  test("allowed and done: a row names the file with its lines added and removed, and links to the change", () => {
    const t = play([{ kind: "tool_result", toolUseId: "toolu_e", content: "Edited src/data.py" }], approved("Allow once"));
    const row = t.entries.at(-1);
    assert.deepEqual(row, { kind: "edited", path: "src/data.py", added: 2, removed: 1, line: 10 });
    const html = renderTranscript(t);
    assert.match(html, /Edited <a href="src\/data\.py#L10"[^>]*>src\/data\.py<\/a> <span class="added"[^>]*>\+2<\/span> <span class="removed"[^>]*>\u22121<\/span>/);
    // the link opens the file at the change, as the answers' links do
    assert.deepEqual(linkTarget("src/data.py#L10"), { kind: "file", path: "src/data.py", line: 10 });
  });

  test("allowed for the session: the same row", () => {
    const t = play([{ kind: "tool_result", toolUseId: "toolu_e", content: "ok" }], approved("Allow for this session"));
    assert.equal(t.entries.at(-1)?.kind, "edited");
  });

  test("denied, failed, or an edit that would not apply: no row", () => {
    for (const [state, isError, before] of [
      ["Deny", true, FILE],
      ["Allow once", true, FILE],
      ["Allow once", true, "no such line\n"],
    ] as const) {
      const t = play([{ kind: "tool_result", toolUseId: "toolu_e", content: "x", isError }], approved(state, before));
      assert.ok(!t.entries.some((e) => e.kind === "edited"), `${state} ${isError} ${before}`);
    }
  });

  test("an edit allowed for the session (no prompt) and one restored after a reload: the row from its strings", () => {
    const live = play([
      { kind: "tool_use", id: "toolu_s", name: "edit_file", input },
      { kind: "tool_result", toolUseId: "toolu_s", content: "ok" },
    ]);
    assert.deepEqual(live.entries.at(-1), { kind: "edited", path: "src/data.py", added: 2, removed: 1, line: 0 });
    assert.match(renderTranscript(live), /Edited <a href="src\/data\.py" /); // no line known: it opens the file
    const restored = transcriptFromMessages([
      { role: "user", content: "rename it" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_s", name: "edit_file", input }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_s", content: "ok" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_d", name: "edit_file", input }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_d", content: "denied", is_error: true }] },
    ]);
    assert.deepEqual(restored.entries.filter((e) => e.kind === "edited"), [
      { kind: "edited", path: "src/data.py", added: 2, removed: 1, line: 0 },
    ]);
  });

  test("a read's result after it adds no second row", () => {
    let t = play([{ kind: "tool_result", toolUseId: "toolu_e", content: "ok" }], approved("Allow once"));
    t = play([
      { kind: "tool_use", id: "toolu_r", name: "read_file", input: { file_path: "src/data.py" } },
      { kind: "tool_result", toolUseId: "toolu_r", content: "line 1" },
    ], t);
    assert.equal(t.entries.filter((e) => e.kind === "edited").length, 1);
  });
});
