import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  compactParams,
  describeCompact,
  describeMicrocompact,
  describeUndo,
  executeCommandParams,
} from "../model/commandModel";

describe("command arguments", () => {
  test("one argument object with the active session", () => {
    assert.deepEqual(executeCommandParams("compact.microcompact", "ses_1"), {
      command: "compact.microcompact",
      arguments: [{ sessionId: "ses_1" }],
    });
  });
  test("no session yet: the server picks the most recently active one", () => {
    assert.deepEqual(executeCommandParams("compact.undo", undefined), { command: "compact.undo", arguments: [{}] });
  });
  const cases: [string, string | undefined, object][] = [
    ["instructions-trimmed", "  keep the failing tests \n", { sessionId: "ses_1", instructions: "keep the failing tests" }],
    ["blank-instructions-left-out", "   ", { sessionId: "ses_1" }],
    ["no-instructions", undefined, { sessionId: "ses_1" }],
  ];
  for (const [id, instructions, argument] of cases) {
    test(id, () => {
      assert.deepEqual(compactParams("ses_1", instructions), { command: "compact.compact", arguments: [argument] });
    });
  }
});

describe("result messages", () => {
  test("microcompaction says how many results and tokens it cleared", () => {
    const message = describeMicrocompact({
      changed: true,
      trigger: "forced",
      tokensBefore: 48211,
      tokensAfter: 20000,
      tokensSaved: 28211,
      cleared: [
        { toolUseId: "t1", tool: "Read", path: "a.py", paths: ["a.py"], tokens: 20000 },
        { toolUseId: "t2", tool: "Bash", paths: [], tokens: 8211 },
      ],
      protected: [{ toolUseId: "t3", path: ".compact/memory/notes.md", paths: [".compact/memory/notes.md"] }],
      evictedReadPaths: ["a.py"],
      unresolved: [],
      mediaCleared: 0,
      createdAt: "2026-12-01T01:00:00.000Z",
    });
    assert.equal(message, "Microcompaction cleared 2 tool results: 48.2k → 20k (−28.2k); kept 1 managed-memory read.");
  });
  test("microcompaction with nothing to clear says so", () => {
    const reason = "Nothing to clear: no clearable tool result is older than the 5 most recent.";
    const message = describeMicrocompact({
      changed: false,
      kind: "nothing_to_clear",
      reason,
      trigger: "forced",
      tokensBefore: 900,
      tokensAfter: 900,
      cleared: [],
      protected: [],
      tokensSaved: 0,
      evictedReadPaths: [],
      unresolved: [],
      mediaCleared: 0,
      createdAt: "2026-11-30T08:00:00Z",
    });
    assert.equal(message, reason);
  });
  test("compaction counts the re-attached files", () => {
    const message = describeCompact({
      tokensBefore: 160000,
      tokensAfter: 14000,
      changed: true,
      summarizer: "anthropic",
      fallback: false,
      fallbackReason: null,
      rehydrated: [
        { kind: "file", path: "a.py", tokens: 3000 },
        { kind: "file", path: "b.py", tokens: 2000 },
        { kind: "plan", path: null, tokens: 400 },
      ],
      boundaryId: "b1",
      trigger: "manual",
    });
    assert.equal(message, "Conversation compacted: 160k → 14k (−146k), 2 files re-attached. Summary by the model.");
  });
  test("undo gives the restored size", () => {
    assert.equal(
      describeUndo({ changed: true, restored: true, boundaryId: "b1", tokensAfter: 160000 }),
      "Compaction undone: the conversation is back to 160k tokens.",
    );
  });
});
