// Renaming a session from the Sessions tree: what the input box accepts, what reaches compact/renameSession, and
// which tree items offer Rename at all (package.json's menu matches the item's contextValue).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { TITLE_MAX_CHARS, renameParams, sessionContextValue, titleProblem } from "../model/sessions";
import { sessionInfo } from "./fixtures";

describe("the rename box", () => {
  test("accepts one line of up to 200 characters, surrounding spaces dropped", () => {
    assert.equal(titleProblem("  Login bug  "), undefined);
    assert.equal(titleProblem("é".repeat(TITLE_MAX_CHARS)), undefined);
  });
  test("says what is wrong with a title the server would refuse", () => {
    assert.equal(titleProblem("   "), "Type a title.");
    assert.match(titleProblem("x".repeat(TITLE_MAX_CHARS + 1)) ?? "", /At most 200 characters \(this has 201\)/);
    assert.match(titleProblem("two\nlines") ?? "", /One line/);
    assert.match(titleProblem("nul\u0000") ?? "", /control characters/);
  });
  test("sends the trimmed title, and nothing when it is unchanged or invalid", () => {
    const session = sessionInfo({ sessionId: "ses_1", title: "old" });
    assert.deepEqual(renameParams(session, "  New title "), { sessionId: "ses_1", title: "New title" });
    assert.equal(renameParams(session, " old "), undefined);
    assert.equal(renameParams(session, ""), undefined);
  });
});

describe("which sessions offer Rename", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
    contributes: { menus: Record<string, { command: string; when: string }[]> };
  };
  const entry = manifest.contributes.menus["view/item/context"].find((m) => m.command === "compact.renameSession");
  const offered = (contextValue: string): boolean => {
    const pattern = /viewItem =~ \/(.+)\/$/.exec(entry?.when ?? "")?.[1];
    assert.ok(pattern, "the Rename menu entry matches on viewItem");
    return new RegExp(pattern).test(contextValue);
  };
  test("own sessions, current or not, do; a followed Claude Code session does not", () => {
    assert.ok(offered(sessionContextValue(sessionInfo({ readOnly: false }), false)));
    assert.ok(offered(sessionContextValue(sessionInfo({ readOnly: false }), true)));
    assert.ok(!offered(sessionContextValue(sessionInfo({ readOnly: true, source: "claude-code" }), true)));
    assert.ok(!offered(sessionContextValue(sessionInfo({ readOnly: true, source: "claude-code" }), false)));
  });
});
