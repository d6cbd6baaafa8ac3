import assert from "node:assert/strict";
import { test } from "node:test";
import { NextCompactionWarnings, nextCompactionLine } from "../model/nextCompaction";
import { statusBarState } from "../model/statusBarState";
import type { NextCompaction } from "../protocol";
import { usage } from "./fixtures";

const far: NextCompaction = {
  thresholdTokens: 967000,
  tokensLeft: 948982,
  turnsLeft: 53,
  perTurn: 18018,
  near: false,
  origin: "Claude Code's default: the window less 33,000",
  disabledBy: null,
};

test("the gauge says how far the agent's automatic compaction is, and where its threshold comes from", () => {
  const line = nextCompactionLine(usage({ nextCompaction: far }), "Claude Code");
  assert.equal(line, "~949k tokens / ~53 turns to Claude Code's automatic compaction at 967k (Claude Code's default: the window less 33,000).");
  const tooltip = statusBarState(usage({ nextCompaction: far }), "running", "Claude Code").tooltip;
  assert.ok(tooltip.includes(line ?? "-"), tooltip);
  assert.equal(nextCompactionLine(usage(), "Claude Code"), undefined); // our own session: nothing from an agent
});

test("one warning when it comes near, with what to do; again only after a compaction moved it away", () => {
  const warnings = new NextCompactionWarnings();
  assert.equal(warnings.check("claude-1", usage({ nextCompaction: far }), "Claude Code"), undefined);
  const near = { ...far, tokensLeft: 12000, turnsLeft: 1, near: true };
  const warning = warnings.check("claude-1", usage({ nextCompaction: near }), "Claude Code");
  assert.equal(
    warning?.text,
    "Claude Code compacts by itself in ~12k tokens / ~1 turn. Before it does: /compact with a focus in Claude Code, pin what must survive, or let it run (the hook brings your files back).",
  );
  assert.deepEqual(warning?.actions, ["Pin a File…", "Show Timeline", "Let It Run"]);
  assert.equal(warnings.check("claude-1", usage({ nextCompaction: { ...near, tokensLeft: 0, turnsLeft: 0 } }), "Claude Code"), undefined);
  assert.equal(warnings.check("claude-1", usage({ nextCompaction: far }), "Claude Code"), undefined); // compacted
  assert.ok(warnings.check("claude-1", usage({ nextCompaction: near }), "Claude Code") !== undefined); // near again
});

test("a setting that turns the agent's automatic compaction off is named once", () => {
  const warnings = new NextCompactionWarnings();
  const off = { ...far, thresholdTokens: null, tokensLeft: null, turnsLeft: null, disabledBy: "DISABLE_AUTO_COMPACT in ~/.claude/settings.json (env)" };
  const warning = warnings.check("claude-1", usage({ nextCompaction: off }), "Claude Code");
  assert.equal(
    warning?.text,
    "Claude Code will not compact by itself: DISABLE_AUTO_COMPACT in ~/.claude/settings.json (env) turns it off, so the session runs into the end of its window.",
  );
  assert.equal(warnings.check("claude-1", usage({ nextCompaction: off }), "Claude Code"), undefined);
});
