import assert from "node:assert/strict";
import { test } from "node:test";
import { Commands } from "../model/commandIds";
import { NextCompactionWarnings, nextCompactionLine, warningCommand } from "../model/nextCompaction";
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
    "Claude Code compacts by itself in ~12k tokens / ~1 turn. Before it does: /compact with a focus in Claude Code, pin what must survive, or let it run (the hook brings your files back). Claude Code's default: the window less 33,000.",
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

test("our own session: how far compact-lsp's automatic compaction is, a warning to compact now, and 'off'", () => {
  const ours = { ...far, thresholdTokens: 9000, tokensLeft: 490, turnsLeft: 1, perTurn: 4255, near: true, origin: "autoCompact.threshold: 9,000" };
  const line = nextCompactionLine(usage({ nextCompaction: ours }), undefined);
  assert.equal(line, "~490 tokens / ~1 turn to compact-lsp's automatic compaction at 9k (autoCompact.threshold: 9,000).");
  assert.ok(statusBarState(usage({ nextCompaction: ours, level: "warning" })).tooltip.includes(line ?? "-"));
  const warnings = new NextCompactionWarnings();
  const warning = warnings.check("s-1", usage({ nextCompaction: ours }), undefined);
  assert.equal(
    warning?.text,
    "This session compacts by itself in ~490 tokens / ~1 turn. Before it does: compact now with a focus, pin what must survive, or let it run (autoCompact.threshold: 9,000).",
  );
  assert.deepEqual(warning?.actions, ["Compact Now…", "Pin a File…", "Let It Run"]);
  const off = { ...ours, thresholdTokens: null, tokensLeft: null, turnsLeft: null, near: false, disabledBy: '"autoCompact.enabled": false' };
  assert.equal(
    warnings.check("s-1", usage({ nextCompaction: off }), undefined)?.text,
    'compact-lsp will not compact this session by itself: "autoCompact.enabled": false turns it off, so the session runs into the end of its window.',
  );
});

test("a Claude Code version with an older rule is named in the warning", () => {
  const old = { ...far, thresholdTokens: 955000, tokensLeft: 15000, turnsLeft: 1, near: true, origin: "Claude Code 2.0.14 compacts at the window less 45,000 (2.1.21 and later: the window less 33,000)" };
  const warning = new NextCompactionWarnings().check("claude-1", usage({ nextCompaction: old }), "Claude Code");
  assert.ok(warning?.text.endsWith("Claude Code 2.0.14 compacts at the window less 45,000 (2.1.21 and later: the window less 33,000)."), warning?.text);
});

test("a warning's buttons act on the session it warned about, not on the one shown since", () => {
  assert.deepEqual(warningCommand("Compact Now…", "s-warned"), [Commands.compactConversation, "s-warned"]);
  assert.deepEqual(warningCommand("Show Timeline", "s-warned"), [Commands.showTimeline, "s-warned"]);
  assert.deepEqual(warningCommand("Pin a File…", "s-warned"), [Commands.pinFile]);
  assert.equal(warningCommand("Let It Run", "s-warned"), undefined);
  assert.equal(warningCommand(undefined, "s-warned"), undefined); // dismissed
});

test("a warning names its session by title: it stays on screen after the user switched to another", () => {
  const ours = { ...far, thresholdTokens: 9000, tokensLeft: 4600, turnsLeft: null, near: true, origin: "autoCompact.threshold: 9,000" };
  assert.equal(
    new NextCompactionWarnings().check("s-1", usage({ nextCompaction: ours }), undefined, "How is the report built?")?.text,
    '"How is the report built?" compacts by itself in ~4.6k tokens. Before it does: compact now with a focus, pin what must survive, or let it run (autoCompact.threshold: 9,000).',
  );
  const near = { ...far, tokensLeft: 12000, turnsLeft: 1, near: true };
  assert.ok(
    new NextCompactionWarnings()
      .check("claude-1", usage({ nextCompaction: near }), "Claude Code", "Fix the flaky parser test")
      ?.text.startsWith('Claude Code compacts "Fix the flaky parser test" by itself in ~12k tokens / ~1 turn. Before it does: /compact with a focus in Claude Code,'),
  );
  const off = { ...far, thresholdTokens: null, tokensLeft: null, turnsLeft: null, disabledBy: "DISABLE_AUTO_COMPACT (env)" };
  assert.equal(
    new NextCompactionWarnings().check("claude-1", usage({ nextCompaction: off }), "Claude Code", "Fix the flaky parser test")?.text,
    'Claude Code will not compact "Fix the flaky parser test" by itself: DISABLE_AUTO_COMPACT (env) turns it off, so the session runs into the end of its window.',
  );
  const long = "Why does the nightly export of the billing report take four hours on Sundays";
  const text = new NextCompactionWarnings().check("s-2", usage({ nextCompaction: ours }), undefined, long)?.text ?? "";
  assert.ok(text.startsWith('"Why does the nightly export of the billing report take four…" compacts by itself'), text);
  // no title yet (a chat before its first answer, a session not listed yet): "This session", as before
  assert.ok(new NextCompactionWarnings().check("s-3", usage({ nextCompaction: ours }), undefined, "  ")?.text.startsWith("This session compacts"));
});
