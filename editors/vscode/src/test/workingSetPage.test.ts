import assert from "node:assert/strict";
import { test } from "node:test";
import { workingSetLink } from "../model/usagePage";
import { renderWorkingSetPage, rowFigures } from "../model/workingSetPage";
import type { WorkingSetResult } from "../protocol";

const OPTIONS = { cspSource: "vscode-webview://test", nonce: "n0nce" };

const RESULT: WorkingSetResult = {
  sessionId: "ses_1",
  cwd: "/home/u/proj",
  text: "<working-set>\n…\n</working-set>",
  characters: 412,
  leftOut: 0,
  rows: [
    { kind: "command", line: "Last test: `pytest -q` — exit 1: FAILED t.py::test_b", label: "Last test",
      command: "pytest -q", commandKind: "test", status: "exit 1", ok: false, exitCode: 1, decisive: "FAILED t.py::test_b" },
    { kind: "edited", line: "- src/<app>.py: +2 −1", path: "src/<app>.py", absolutePath: "/home/u/proj/src/<app>.py",
      uri: "file:///home/u/proj/src/%3Capp%3E.py", outside: false, gone: false, change: "edited", added: 2, removed: 1 },
    { kind: "edited", line: "- old.py: edited by you, not on disk now (deleted or moved since)", path: "old.py",
      absolutePath: "/home/u/proj/old.py", uri: "file:///home/u/proj/old.py", outside: true, gone: true, change: "edited" },
    { kind: "stale", line: "- notes.md: now 28 bytes", path: "notes.md", absolutePath: "/home/u/proj/notes.md",
      uri: "file:///home/u/proj/notes.md", outside: true, gone: false, size: 28 },
  ],
};

test("the working set lists each section with its rows, files as links by row index, escaped", () => {
  const html = renderWorkingSetPage(RESULT, "fix login", OPTIONS);
  assert.match(html, /<h2>Commands<\/h2>/);
  assert.match(html, /<code>pytest -q<\/code> <span class="stale">exit 1<\/span>/);
  assert.match(html, /<a href="#" data-row="1" title="\/home\/u\/proj\/src\/&lt;app&gt;\.py">src\/&lt;app&gt;\.py<\/a> <span class="muted">\+2 −1<\/span>/);
  assert.match(html, /<a href="#" data-row="3"[^>]*>notes\.md<\/a>/);
  assert.ok(!html.includes('data-row="2"'), "a file that is gone is no link");
  assert.ok(!html.includes("file:///"), "the page never names a URI: the extension opens the row's");
  assert.match(html, /the model gets 412 characters/);
  assert.match(html, /<details><summary>What the model gets<\/summary><pre>&lt;working-set&gt;/);
  assert.ok(html.indexOf("Changed by you, then by someone else") < html.indexOf("<h2>Changed by you</h2>"));
});

test("a row's figures are its line after the path", () => {
  assert.equal(rowFigures(RESULT.rows[1]), "+2 −1");
  assert.equal(rowFigures(RESULT.rows[0]), "Last test: `pytest -q` — exit 1: FAILED t.py::test_b");
});

test("an empty working set says so", () => {
  const html = renderWorkingSetPage({ ...RESULT, rows: [], text: "", characters: 0 }, "new", OPTIONS);
  assert.match(html, /Nothing yet/);
  assert.ok(!html.includes("<details>"));
});

test("the usage view links to the session's working set with the one command it allows", () => {
  const link = workingSetLink('claude-"x"');
  assert.match(link, /href="command:compact\.showWorkingSet\?%5B%22claude-%5C%22x%5C%22%22%5D"/);
  assert.match(link, />Working set<\/a>/);
});
