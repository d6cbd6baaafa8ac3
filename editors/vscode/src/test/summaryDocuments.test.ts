import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compactionSummaries,
  parseResultPath,
  resultDocumentText,
  resultPath,
  parseSummaryPath,
  parseTimelinePath,
  summaryDocumentText,
  summaryPath,
  timelineMarkdown,
  timelinePath,
} from "../model/compactionText";

test("a summary opens at a read-only address that names its session and compaction, and reads back", () => {
  const path = summaryPath("ses_3f/1c", 2);
  assert.ok(path.endsWith(".md"), path); // Markdown by its name: no language switch, nothing to save
  assert.deepEqual(parseSummaryPath(path), { sessionId: "ses_3f/1c", index: 2 });
  assert.equal(parseSummaryPath("/not/a/summary/path"), undefined);
});

test("the summary document is the summary the model read, under a heading that says so", () => {
  const entries = [
    { kind: "message", message: { role: "user", content: "hi" } },
    { kind: "compaction", summary: "The user fixed login." },
    { kind: "microcompaction" },
    { kind: "compaction", summary: null },
  ];
  const summaries = compactionSummaries(entries);
  assert.deepEqual(summaries, ["The user fixed login.", undefined]);
  assert.match(summaryDocumentText(summaries[0]), /^# Summary of the conversation before this compaction\n[\s\S]*The user fixed login\.\n$/);
  assert.match(summaryDocumentText(summaries[1]), /not stored with the session/);
});

test("the timeline reads as a person would tell it: figures, threshold, summary, what was cleared, receipts", () => {
  const text = timelineMarkdown({
    sessionId: "claude-7acd",
    agent: "claude-code",
    thresholdTokens: null,
    rows: [
      {
        kind: "full",
        at: "2026-12-05T10:01:00.000Z",
        trigger: "manual",
        tokensBefore: 41200,
        tokensAfter: 9800,
        summary: "This session is being continued.",
        reattached: ["src/a.py"],
        receipts: [{ hook: "SessionStart", characters: 2000, spilled: false, files: ["b.py", "a.py"] }],
      },
    ],
  });
  assert.match(text, /^# Compaction timeline\n\n1 compaction by Claude Code\.\n/);
  assert.match(text, /## Compacted \(manual\): 41\.2k → 9\.8k \(−31\.4k\)/);
  assert.match(text, /\*2026-12-05 10:01 UTC\*/);
  assert.match(text, /> This session is being continued\./);
  assert.match(text, /- src\/a\.py/);
  assert.match(text, /Hook delivered \(SessionStart, as the transcript recorded it\): 2000 characters, inline, files b\.py, a\.py\./);
  const ours = timelineMarkdown({
    sessionId: "ses_1",
    agent: "compact-lsp",
    thresholdTokens: 167000,
    rows: [
      { kind: "micro", at: null, trigger: "size", tokensBefore: 52000, tokensAfter: 21000, cleared: [{ toolUseId: "toolu_1", path: "src/app.py", tokens: 812 }] },
      { kind: "full", at: null, trigger: "auto", tokensBefore: 171000, tokensAfter: 23000, summaryIndex: 0 },
      { kind: "undo", at: null, trigger: "manual" },
    ],
  });
  assert.match(ours, /3 compactions by Compact · automatic at 167k tokens\./);
  assert.match(ours, /- src\/app\.py \(812 tokens\): compact-summary:\/result\/ses_1\/toolu_1\/src_app\.py/);
  assert.match(ours, /\(fired at 171k, threshold 167k\)/);
  assert.match(ours, /## Compaction undone \(manual\)/);
  const link = /The whole summary, read-only \(Ctrl\+click\): compact-summary:(\S+)/.exec(ours);
  assert.ok(link !== null, ours); // our full compaction links to its whole summary, which opens read-only
  assert.deepEqual(parseSummaryPath(link[1]), { sessionId: "ses_1", index: 0 });
  assert.equal((ours.match(/The whole summary/g) ?? []).length, 1); // not on the microcompaction or the undo
  assert.equal(parseTimelinePath(timelinePath("ses_1")), "ses_1");
});

test("a cleared result opens read-only at an address that names it, and reads what the tool returned", () => {
  const path = resultPath("ses_1", "toolu_1", "src/app.py");
  assert.deepEqual(parseResultPath(path), { sessionId: "ses_1", toolUseId: "toolu_1" });
  assert.equal(parseResultPath("/timeline/ses_1/x.md"), undefined);
  const entries = [
    { kind: "message", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "no" }] } },
    { kind: "message", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "def app(): ..." }] }] } },
  ];
  assert.equal(resultDocumentText(entries, "toolu_1"), "def app(): ...");
  assert.match(resultDocumentText(entries, "toolu_9"), /no longer in the session's history/);
});

test("a timeline says when the agent's automatic compaction is off, and what turns it off", () => {
  const text = timelineMarkdown({ sessionId: "claude-1", agent: "claude-code", thresholdTokens: null, disabledBy: "DISABLE_AUTO_COMPACT in the environment", rows: [] });
  assert.match(text, /Automatic compaction is off: DISABLE_AUTO_COMPACT in the environment\./);
});
