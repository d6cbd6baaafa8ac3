import assert from "node:assert/strict";
import { test } from "node:test";
import { SessionRows, sessionDescription, sessionTooltip } from "../model/sessions";
import { sessionInfo, usage } from "./fixtures";

const now = new Date("2026-11-30T08:03:00Z");
const followed = sessionInfo({ sessionId: "claude-7acd", title: "refactor the parser", source: "claude-code", readOnly: true, usage: usage({ total: 18000 }) });
const ours = sessionInfo({ usage: usage({ total: 5200 }) });

test("a followed session's row shows the figures the gauge shows, not those of its last listing", () => {
  const rows = new SessionRows();
  rows.listing();
  rows.listed([ours, followed]);
  assert.match(sessionDescription(rows.shown(followed), false, now), /^18k · /);
  const redraw = rows.usage("claude-7acd", usage({ total: 34000 }));
  assert.equal(redraw, followed); // the listed row, which the tree redraws: no listing asked for
  assert.match(sessionDescription(rows.shown(followed), false, now), /^34k · 3 min ago · Claude Code · read-only$/);
  assert.match(sessionTooltip(rows.shown(followed), false), /34k tokens in the context/);
  assert.equal(rows.byId("claude-7acd")?.sessionId, "claude-7acd");
  assert.match(sessionDescription(rows.shown(ours), false, now), /^5\.2k · /); // the other row is as listed
});

test("a usage that changes nothing on screen, or of a session not listed, redraws nothing", () => {
  const rows = new SessionRows();
  rows.listed([followed]);
  assert.equal(rows.usage("claude-7acd", usage({ total: 18000 })), undefined);
  assert.equal(rows.usage("codex-01a2", usage({ total: 9000 })), undefined);
  assert.ok(rows.usage("claude-7acd", usage({ total: 19000 })) !== undefined);
  assert.equal(rows.usage("claude-7acd", usage({ total: 19000 })), undefined); // said already
});

test("a new listing holds the usages sent before it was asked for; those sent while it was under way still count", () => {
  const rows = new SessionRows();
  rows.listed([followed]);
  rows.usage("claude-7acd", usage({ total: 34000 }));
  rows.listing(); // asked for after that usage: its figures are the newer ones
  const relisted = { ...followed, tokens: 35000, usage: usage({ total: 35000 }) };
  rows.listed([relisted]);
  assert.match(sessionDescription(rows.shown(relisted), false, now), /^35k · /);
  rows.listing();
  rows.usage("claude-7acd", usage({ total: 41000 })); // sent while the listing was under way
  rows.listed([relisted]);
  assert.match(sessionDescription(rows.shown(relisted), false, now), /^41k · /);
});
