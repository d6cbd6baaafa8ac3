import assert from "node:assert/strict";
import { test } from "node:test";
import { biggestItems, clearedItems, contextItems, contextPicture } from "../model/contextPicture";
import type { Message } from "../protocol";
import { CLEARED_TOOL_RESULT } from "../protocol";
import { usage } from "./fixtures";

const messages: Message[] = [
  { role: "user", content: "Read main.py and utils.py" },
  {
    role: "assistant",
    content: [
      { type: "tool_use", id: "t1", name: "read_file", input: { file_path: "main.py" } },
      { type: "tool_use", id: "t2", name: "Read", input: { file_path: "utils.py" } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "t1", content: CLEARED_TOOL_RESULT },
      { type: "tool_result", tool_use_id: "t2", content: "x = 1\n".repeat(300) },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "Both files are short." }] },
];

test("kinds are drawn to scale of the window, in a fixed order, empty ones left out", () => {
  const picture = contextPicture(usage());
  assert.deepEqual(
    picture.segments.map((s) => [s.kind, Number(s.width.toFixed(2))]),
    [["system", 0.6], ["memory", 0.25], ["userText", 1.55], ["assistantText", 2.7], ["toolUse", 1.01], ["toolResult", 18]],
  );
  assert.equal(picture.free, 200000 - 48211);
  assert.equal(picture.warningAt, 73.5);
  assert.equal(picture.autoCompactAt, 83.5);
});

test("a context over the window still fits the bar", () => {
  const picture = contextPicture(usage({ total: 300000, byKind: { toolResult: 250000, userText: 50000 } }));
  const width = picture.segments.reduce((sum, s) => sum + s.width, 0);
  assert.ok(Math.abs(width - 100) < 1e-9);
  assert.equal(picture.freeWidth, 0);
  assert.equal(picture.free, 0);
});

test("items are named after their tool call and add up to the server's exact totals per kind", () => {
  const u = usage({ byKind: { userText: 30, toolUse: 40, toolResult: 600, assistantText: 8 } });
  const items = contextItems(messages, u);
  assert.deepEqual(
    items.map((i) => i.label),
    [
      "User: Read main.py and utils.py",
      "Call read_file main.py",
      "Call Read utils.py",
      "Result of read_file main.py",
      "Result of Read utils.py",
      "Assistant: Both files are short.",
    ],
  );
  const resultTokens = items.filter((i) => i.kind === "toolResult").reduce((sum, i) => sum + i.tokens, 0);
  assert.ok(Math.abs(resultTokens - 600) <= 1);
});

test("the biggest items leave cleared results out; cleared results are listed on their own", () => {
  const items = contextItems(messages, usage({ byKind: { userText: 30, toolUse: 40, toolResult: 600, assistantText: 8 } }));
  assert.equal(biggestItems(items, 2)[0].label, "Result of Read utils.py");
  assert.ok(!biggestItems(items).some((i) => i.cleared));
  assert.deepEqual(clearedItems(items).map((i) => i.toolUseId), ["t1"]);
});

test("a cleared result in block form is recognised too", () => {
  const items = contextItems(
    [
      { role: "assistant", content: [{ type: "tool_use", id: "t9", name: "Bash", input: { command: "npm test" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: [{ type: "text", text: CLEARED_TOOL_RESULT }] }] },
    ],
    usage(),
  );
  assert.deepEqual(clearedItems(items).map((i) => i.label), ["Result of Bash npm test"]);
});

test("files re-attached after compaction are named as such", () => {
  const items = contextItems(
    [{ role: "user", content: [{ type: "text", text: '<file path="src/report.py">\ndef column_0(rows): ...\n</file>' }] }],
    usage(),
  );
  assert.equal(items[0].label, "Attached file src/report.py");
});
