// Pins as the user sees them: a pin button on finished tool calls, the Pinned table of the usage view, the toasts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EMPTY_TRANSCRIPT, addMarker, applyChatEvent, startTurn } from "../model/chatModel";
import { parseChatViewRequest, renderTranscript } from "../model/chatPage";
import { describePin, pinEffect, pinLabel, pinnedItems } from "../model/pins";
import { renderUsagePage } from "../model/usagePage";
import type { Status } from "../protocol";
import { usage } from "./fixtures";

describe("pins in the chat", () => {
  const running = applyChatEvent(startTurn(EMPTY_TRANSCRIPT, "hi"), {
    sessionId: "s", kind: "tool_use", id: "toolu_7", name: "read_file", input: { file_path: "src/a.py" },
  });
  test("a finished tool call can be pinned; a running one cannot yet", () => {
    assert.ok(!renderTranscript(running).includes('data-action="pin"'));
    const done = applyChatEvent(running, { sessionId: "s", kind: "tool_result", toolUseId: "toolu_7", name: "read_file", content: "x", isError: false });
    assert.match(renderTranscript(done), /data-action="pin" data-id="toolu_7"/);
  });
  test("a tool call above a compaction boundary is summarised away: no pin", () => {
    const done = applyChatEvent(running, { sessionId: "s", kind: "tool_result", toolUseId: "toolu_7", name: "read_file", content: "x", isError: false });
    const compacted = addMarker(done, { kind: "marker", compaction: "full", trigger: "auto", tokensBefore: 9, tokensAfter: 3 });
    assert.ok(!renderTranscript(compacted).includes('data-action="pin"'));
  });
  test("the webview's pin request names a tool call", () => {
    assert.deepEqual(parseChatViewRequest({ type: "pin", id: "toolu_7" }), { type: "pin", id: "toolu_7" });
    assert.equal(parseChatViewRequest({ type: "pin", id: "" }), undefined);
  });
});

describe("pinned items", () => {
  const answer = {
    pinned: [
      { kind: "toolResult", toolUseId: "toolu_1", inHistory: true, tool: "read_file", path: "src/app.py" },
      { kind: "toolResult", toolUseId: "toolu_2", inHistory: false },
      { kind: "file", path: "src/auth.py" },
      { kind: "bogus" },
    ],
  };
  test("labels and effects", () => {
    const pins = pinnedItems(answer);
    assert.deepEqual(pins.map(pinLabel), ["read_file src/app.py", "toolu_2", "src/auth.py"]);
    assert.deepEqual(pins.map(pinEffect), [
      "never cleared by microcompaction",
      "summarised away (no longer in the context)",
      "re-attached first after a compaction",
    ]);
    assert.deepEqual(pinnedItems({}), []);
  });
  test("the usage view lists them", () => {
    const status = { sessionId: "s", usage: usage(), readFiles: [], lastMicrocompaction: null, lastCompaction: null, compacting: false, ...answer } as unknown as Status;
    const html = renderUsagePage(status, [], { cspSource: "vscode-resource:" });
    assert.match(html, /<h2>Pinned \(3\)<\/h2>/);
    assert.match(html, /<code>src\/auth\.py<\/code><\/td><td>file<\/td><td class="muted">re-attached first after a compaction/);
  });
  test("the toasts say what a pin does", () => {
    assert.equal(describePin({ toolUseId: "t" }, true, "read_file src/app.py"),
      "Pinned the result of read_file src/app.py: microcompaction will never clear it.");
    assert.equal(describePin({ path: "src/auth.py" }, true, "src/auth.py"),
      "Pinned src/auth.py: it is re-attached first after every compaction.");
    assert.equal(describePin({ path: "src/auth.py" }, false, "src/auth.py"), "Unpinned src/auth.py.");
  });
});
