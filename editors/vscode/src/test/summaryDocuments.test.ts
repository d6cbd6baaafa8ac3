import assert from "node:assert/strict";
import { test } from "node:test";
import {
  compactionSummaries,
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
        receipts: [{ hook: "SessionStart", characters: 2000, spilled: false }],
      },
    ],
  });
  assert.match(text, /^# Compaction timeline\n\n1 compaction by Claude Code\.\n/);
  assert.match(text, /## Compacted \(manual\): 41\.2k → 9\.8k \(−31\.4k\)/);
  assert.match(text, /\*2026-12-05 10:01 UTC\*/);
  assert.match(text, /> This session is being continued\./);
  assert.match(text, /- src\/a\.py/);
  assert.match(text, /Hook delivered \(SessionStart, as the transcript recorded it\): 2000 characters, inline\./);
  const ours = timelineMarkdown({
    sessionId: "ses_1",
    agent: "compact-lsp",
    thresholdTokens: 167000,
    rows: [
      { kind: "micro", at: null, trigger: "size", tokensBefore: 52000, tokensAfter: 21000, cleared: [{ toolUseId: "toolu_1", path: "src/app.py", tokens: 812 }] },
      { kind: "full", at: null, trigger: "auto", tokensBefore: 171000, tokensAfter: 23000 },
      { kind: "undo", at: null, trigger: "manual" },
    ],
  });
  assert.match(ours, /3 compactions by Compact · automatic at 167k tokens\./);
  assert.match(ours, /- src\/app\.py \(812 tokens\)/);
  assert.match(ours, /\(fired at 171k, threshold 167k\)/);
  assert.match(ours, /## Compaction undone \(manual\)/);
  assert.equal(parseTimelinePath(timelinePath("ses_1")), "ses_1");
});
