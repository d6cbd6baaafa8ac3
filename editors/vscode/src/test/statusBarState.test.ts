import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mostRecentSession } from "../model/sessions";
import { statusBarState } from "../model/statusBarState";
import type { UsageLevel } from "../protocol";
import { sessionInfo, usage } from "./fixtures";

test("shows tokens, window and percent with the pulse icon", () => {
  const state = statusBarState(usage());
  assert.equal(state.text, "$(pulse) 48.2k / 200k (24%)");
  assert.equal(state.command, "compact.showUsage");
});

describe("background follows the level", () => {
  const cases: [UsageLevel, string][] = [
    ["ok", "none"],
    ["warning", "warning"],
    ["critical", "warning"],
  ];
  for (const [level, background] of cases) {
    test(level, () => assert.equal(statusBarState(usage({ level })).background, background));
  }
});

test("tooltip lists the kinds biggest first and leaves out empty ones", () => {
  const lines = statusBarState(usage()).tooltip.split("\n");
  const kinds = lines.filter((line) => line.startsWith("  ")).map((line) => line.trim().split(":")[0]);
  assert.deepEqual(kinds, ["Tool results", "Assistant text", "User text", "Tool calls", "System prompt", "Managed memory"]);
  assert.ok(!lines.some((line) => line.includes("Attachments")));
});

test("tooltip warns at the auto-compact threshold", () => {
  assert.match(statusBarState(usage({ level: "critical" })).tooltip, /next turn compacts/);
});

test("tooltip mentions the API's reported size when there is one", () => {
  assert.match(statusBarState(usage({ reported: 47950 })).tooltip, /Reported by the API for the last request: 48k/);
  assert.doesNotMatch(statusBarState(usage()).tooltip, /reported/);
});

test("before any session the item still opens the usage view", () => {
  const state = statusBarState(undefined);
  assert.equal(state.text, "$(pulse) Compact");
  assert.equal(state.background, "none");
});

test("a stopped server is visible and leads to the log", () => {
  const state = statusBarState(usage(), "stopped");
  assert.equal(state.background, "warning");
  assert.equal(state.command, "compact.showServerLog");
  assert.doesNotMatch(state.text, /48\.2k/);
});

test("after a restart the gauge follows the session updated last", () => {
  const older = sessionInfo({ sessionId: "ses_old", title: "a", updatedAt: "2026-11-30T07:00:00Z", usage: usage({ total: 1000 }) });
  const newer = sessionInfo({ sessionId: "ses_new", title: "b", updatedAt: "2026-11-30T08:00:00Z", usage: usage() });
  assert.equal(mostRecentSession([older, newer])?.sessionId, "ses_new");
  assert.equal(mostRecentSession([]), undefined);
});

test("a session whose automatic compaction is off is not told the next turn compacts", () => {
  const off = { thresholdTokens: null, tokensLeft: null, turnsLeft: null, perTurn: 9000, near: false, origin: "Claude Code", disabledBy: "DISABLE_AUTO_COMPACT in the environment" };
  const tooltip = statusBarState(usage({ level: "critical", nextCompaction: off }), "running", "Claude Code").tooltip;
  assert.ok(tooltip.includes("Near the end of the window, and nothing compacts it by itself."), tooltip);
  assert.ok(!tooltip.includes("the next turn compacts"), tooltip);
});
