import assert from "node:assert/strict";
import { test } from "node:test";
import { contextItems } from "../model/contextPicture";
import { renderRehydrationPage, renderUsagePage } from "../model/usagePage";
import type { Status } from "../protocol";
import { CLEARED_TOOL_RESULT } from "../protocol";
import { usage } from "./fixtures";

const OPTIONS = { cspSource: "vscode-webview://test" };

function status(overrides: Partial<Status> = {}): Status {
  return {
    sessionId: "ses_3f1c",
    title: "fix login",
    usage: usage(),
    messageCount: 12,
    readFiles: [
      { path: "src/app.py", kind: "read", freshness: "fresh", range: "full", tokens: 812, readAt: "2026-11-30T07:01:02Z", inHistory: true, open: true, dirty: false },
      { path: "src/<old>.py", kind: "read", freshness: "stale", range: "lines 1-40", tokens: 300, readAt: "2026-11-30T07:00:00Z", inHistory: false, open: false, dirty: false },
    ],
    lastMicrocompaction: null,
    lastCompaction: null,
    compacting: false,
    canUndo: false,
    sessionNotes: null,
    biggestItems: [],
    pinned: [],
    admittedFiles: [],
    ...overrides,
  };
}

test("the usage page shows the total, each kind and every read file with its freshness", () => {
  const html = renderUsagePage(status(), undefined, OPTIONS);
  assert.match(html, /48\.2k \/ 200k \(24%\)/);
  assert.match(html, /Tool results 36k \(18%\)/);
  assert.match(html, /<code>src\/app\.py<\/code><\/td><td class="fresh">fresh<\/td>/);
  assert.match(html, /class="stale">stale/);
  assert.match(html, /open/);
  assert.match(html, /not in context/);
  assert.ok(html.includes("src/&lt;old&gt;.py"));
});

test("a file among the biggest items is never called not in context", () => {
  const biggest = [{ kind: "attachments", label: "file src/<old>.py", tokens: 4000, messageIndex: 3, path: "/w/src/<old>.py" }];
  const html = renderUsagePage(status({ biggestItems: biggest } as Partial<Status>), undefined, OPTIONS);
  assert.doesNotMatch(html, /not in context/);
  const cleared = [{ ...biggest[0], label: "read_file src/<old>.py (cleared)" }];
  assert.match(renderUsagePage(status({ biggestItems: cleared } as Partial<Status>), undefined, OPTIONS), /not in context/);
});

test("the usage page runs no scripts", () => {
  const html = renderUsagePage(status(), undefined, OPTIONS);
  assert.match(html, /script-src 'none'/);
  assert.ok(!html.includes("<script"));
});

test("near the threshold the page says so", () => {
  assert.match(renderUsagePage(status({ usage: usage({ level: "warning" }) }), undefined, OPTIONS), /near the auto-compact threshold/);
  assert.doesNotMatch(renderUsagePage(status(), undefined, OPTIONS), /auto-compact threshold<\/span>/);
});

test("with the messages it lists the biggest items and the cleared results", () => {
  const items = contextItems(
    [
      { role: "assistant", content: [
        { type: "tool_use", id: "t1", name: "Read", input: { file_path: "big.py" } },
        { type: "tool_use", id: "t2", name: "Bash", input: { command: "pytest" } },
      ] },
      { role: "user", content: [
        { type: "tool_result", tool_use_id: "t1", content: "y".repeat(4000) },
        { type: "tool_result", tool_use_id: "t2", content: CLEARED_TOOL_RESULT },
      ] },
    ],
    usage(),
  );
  const olderServer = { ...status(), biggestItems: undefined } as unknown as Status; // sent no exact items
  const html = renderUsagePage(olderServer, items, OPTIONS);
  assert.match(html, /Biggest items/);
  assert.match(html, /Result of Read big\.py/);
  assert.match(html, /Cleared results \(1\)[\s\S]*Result of Bash pytest/);
});

test("the server's exact biggest items win over the page's own estimate", () => {
  const exact = {
    ...status(),
    biggestItems: [
      { kind: "attachments", label: "attached file src/report.py", tokens: 3210, messageIndex: 0, path: "src/report.py" },
      { kind: "toolResult", label: "Read src/data.py", tokens: 1700, messageIndex: 2, tool: "Read" },
    ],
  };
  const html = renderUsagePage(exact, [], OPTIONS);
  assert.match(html, /attached file src\/report\.py[\s\S]*3\.2k/);
  assert.match(html, /Read src\/data\.py[\s\S]*1\.7k/);
});

test("the rehydration preview says which files fit the budget and why", () => {
  const html = renderRehydrationPage(
    {
      budget: { maxFiles: 5, tokenBudget: 50000, maxTokensPerFile: 5000 },
      candidates: [
        { path: "src/app.py", score: 0.91, tokens: 4000, included: true, reason: "read 2 minutes ago", partial: false, deleted: false, source: "read" },
        { path: "data.json", score: 0.4, tokens: 9000, included: false, reason: "over the per-file limit", partial: false, deleted: false, source: "read" },
      ],
      unlisted: 0,
    },
    OPTIONS,
  );
  assert.match(html, /1 of 2 files would be re-attached: 4k of the 50k token budget/);
  assert.match(html, /data\.json<\/code><\/td><td>left out/);
  assert.match(html, /over the per-file limit/);
  assert.doesNotMatch(html, /id="unlisted"/);
});

test("the rehydration preview counts the candidates past the budget it does not list", () => {
  const html = renderRehydrationPage(
    {
      budget: { maxFiles: 50, tokenBudget: 20000, maxTokensPerFile: 8000 },
      candidates: [
        { path: "src/app.py", score: 1, tokens: 400, included: true, reason: "fits the budget", partial: false, deleted: false, source: "disk" },
        { path: "src/old.py", score: 0.5, tokens: 450, included: false, reason: "about 450 tokens when last read; only 120 left in the total budget", partial: false, deleted: false, source: "disk" },
      ],
      unlisted: 40958,
    },
    OPTIONS,
  );
  assert.match(html, /1 of 40,960 files would be re-attached/);
  assert.match(html, /id="unlisted">…and 40,958 more left out, not listed/);
});
