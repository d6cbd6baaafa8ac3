import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatPercent, formatReduction, formatTokens, formatUsage, kindLabel } from "../model/usageFormat";
import { usage } from "./fixtures";

describe("formatTokens", () => {
  const cases: [string, number, string][] = [
    ["zero", 0, "0"],
    ["below-1k", 950, "950"],
    ["exact-1k", 1000, "1k"],
    ["one-decimal", 48211, "48.2k"],
    ["drops-trailing-zero", 12000, "12k"],
    ["no-decimal-above-100k", 167400, "167k"],
    ["window", 200000, "200k"],
    ["rounds-up-to-million", 999_960, "1M"],
    ["millions", 1_250_000, "1.25M"],
    ["negative-clamped", -5, "0"],
  ];
  for (const [id, tokens, expected] of cases) {
    test(id, () => assert.equal(formatTokens(tokens), expected));
  }
});

describe("formatPercent", () => {
  const cases: [string, number, string][] = [
    ["rounds", 24.1, "24%"],
    ["tiny-is-not-zero", 0.2, "<1%"],
    ["empty-is-zero", 0, "0%"],
    ["almost-full-is-not-100", 99.6, "99%"],
    ["over-the-window", 104.2, "104%"],
  ];
  for (const [id, percent, expected] of cases) {
    test(id, () => assert.equal(formatPercent(percent), expected));
  }
});

test("usage reads as tokens / window (percent)", () => {
  assert.equal(formatUsage(usage()), "48.2k / 200k (24%)");
});

test("a reduction shows before, after and the saving", () => {
  assert.equal(formatReduction(48211, 12000), "48.2k → 12k (−36.2k)");
  assert.equal(formatReduction(1000, 1500), "1k → 1.5k (+500)");
});

test("kinds get readable labels, unknown ones are split at capitals", () => {
  assert.equal(kindLabel("toolResult"), "Tool results");
  assert.equal(kindLabel("changedFileNotices"), "Changed file notices");
});
