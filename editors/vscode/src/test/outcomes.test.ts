// Outcomes read as outcomes (information), a fallback is named, failures say what to do next.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ResponseError } from "vscode-jsonrpc";
import {
  compactOutcome,
  describeMicrocompact,
  describeUndo,
  failureOutcome,
  plainMessage,
  toastText,
  writtenInAnotherWindow,
} from "../model/commandModel";
import { proposedChange } from "../model/proposedChange";
import { ServerNotFoundError, checkLaunch } from "../model/serverSettings";
import { sessionDescription } from "../model/sessions";
import type { CompactResult } from "../protocol";
import { sessionInfo, usage } from "./fixtures";

const compacted: CompactResult = {
  changed: true,
  tokensBefore: 35800,
  tokensAfter: 5000,
  summarizer: "anthropic",
  fallback: false,
  fallbackReason: null,
  rehydrated: [],
  boundaryId: "b1",
  trigger: "manual",
};

describe("Restricted Mode", () => {
  test("a command in an untrusted folder says Compact is paused and how to go on, not that the server is broken", () => {
    const outcome = failureOutcome("Compaction", Object.assign(new Error("Compact is paused in Restricted Mode."), { data: { kind: "restricted" } }));
    assert.equal(outcome.severity, "info");
    assert.match(outcome.text, /^Paused in Restricted Mode: this folder is not trusted\. Trust it \(Manage Workspace Trust\)/);
    assert.doesNotMatch(outcome.text, /not running|Restart Server|failed/);
  });
});

describe("a server that did not start", () => {
  test("any command says the cause and offers the setting, the log and a restart, not a bare \"not running\"", () => {
    const error = Object.assign(new Error("Compact's server did not start: /x/broken (compactLsp.server.command): it stopped as it started: ModuleNotFoundError: No module named 'pygls'. Fix that, then run “Compact: Restart Server”."), {
      data: { kind: "not_started" },
      setting: "compactLsp.server.command",
    });
    const outcome = failureOutcome("Starting a chat", error);
    assert.equal(outcome.severity, "error");
    assert.match(outcome.text, /^Compact's server did not start: .*No module named 'pygls'/);
    assert.deepEqual(outcome.actions, ["Open Settings", "Show Server Log", "Restart Server"]);
    assert.equal(outcome.setting, "compactLsp.server.command");
  });
});

describe("compaction outcomes", () => {
  test("a model summary is information and says so", () => {
    assert.deepEqual(compactOutcome(compacted), {
      severity: "info",
      text: "Conversation compacted: 35.8k → 5k (−30.8k). Summary by the model.",
      actions: undefined,
    });
  });
  test("a fallback is a warning that names the reason; an overloaded API (529) does not offer Set API Key", () => {
    const outcome = compactOutcome({ ...compacted, summarizer: "offline", fallback: true, fallbackReason: "overloaded: 529" } as never);
    assert.equal(outcome.severity, "warning");
    assert.match(outcome.text, /Offline summary, because the model failed: overloaded: 529\.$/);
    assert.deepEqual(outcome.actions, ["Show Server Log"]);
  });
  test("a fallback because the key was refused offers Set API Key", () => {
    const refused = { ...compacted, summarizer: "offline", fallback: true, fallbackReason: "authentication failed: 401 invalid x-api-key" };
    assert.deepEqual(compactOutcome(refused as never).actions, ["Set API Key", "Show Server Log"]);
  });
  test("a cancel reads 'Compaction cancelled', as a result and as an error kind", () => {
    const cancelled = { changed: false, cancelled: true, kind: "cancelled", reason: "The compaction was cancelled; nothing changed." };
    assert.deepEqual(compactOutcome(cancelled as never), { severity: "info", text: "Compaction cancelled." });
    const error = new ResponseError(-32803, "cancelled by the user", { kind: "cancelled" });
    assert.deepEqual(failureOutcome("Compaction", error), { severity: "info", text: "Compaction cancelled." });
  });
  test("nothing to do is information", () => {
    const empty = { changed: false, kind: "empty", reason: "There is nothing to compact yet: the conversation has no history." };
    assert.deepEqual(compactOutcome(empty as never), { severity: "info", text: empty.reason });
    const noUndo = { changed: false, kind: "nothing_to_undo", reason: "There is no compaction to undo in this session." };
    assert.equal(describeUndo(noUndo as never), noUndo.reason);
    const noClear = { changed: false, kind: "nothing_to_clear", reason: "Nothing to clear: no tool result is clearable.", tokensBefore: 9, tokensAfter: 9 };
    assert.equal(describeMicrocompact(noClear as never), noClear.reason);
    const error = new ResponseError(-32803, "nothing to undo", { kind: "nothing_to_undo" });
    assert.equal(failureOutcome("Undo", error).severity, "info");
  });
});

describe("failures", () => {
  test("a missing key offers Set API Key", () => {
    const outcome = failureOutcome("Compaction", new ResponseError(-32803, "No Anthropic API key: set ANTHROPIC_API_KEY", { kind: "auth" }));
    assert.equal(outcome.severity, "error");
    assert.deepEqual(outcome.actions, ["Set API Key", "Show Server Log"]);
  });
  test("a bad pythonPath names the setting and the cause, and opens it", () => {
    let error: unknown;
    try {
      checkLaunch({ command: "/nowhere/python", args: ["-m", "compact_lsp"], source: "server.pythonPath" }, () => "missing");
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof ServerNotFoundError);
    const outcome = failureOutcome("Starting the server", error);
    assert.equal(outcome.text, "compactLsp.server.pythonPath is /nowhere/python, which does not exist (ENOENT).");
    assert.deepEqual(outcome.actions, ["Open Settings", "Show Server Log"]);
    assert.equal(outcome.setting, "compactLsp.server.pythonPath");
  });
  test("a command found on PATH or a bare name is left to the spawn", () => {
    assert.doesNotThrow(() => checkLaunch({ command: "python3", args: [], source: "server.pythonPath" }, () => "missing"));
  });
});

describe("the proposed change behind Show diff", () => {
  const cases: [string, string, unknown, string | undefined, string | undefined, string | undefined][] = [
    ["edit-first", "edit_file", { file_path: "a.py", old_string: "x", new_string: "y" }, "x x", "y x", undefined],
    ["edit-all", "edit_file", { file_path: "a.py", old_string: "x", new_string: "y", replace_all: true }, "x x", "y y", undefined],
    ["edit-dollar-kept", "edit_file", { file_path: "a.py", old_string: "x", new_string: "$&$1" }, "x", "$&$1", undefined],
    ["edit-missing-text", "edit_file", { file_path: "a.py", old_string: "z", new_string: "y" }, "x", "x", "The text to replace is not in the file (any more)."],
    ["write-new-file", "write_file", { file_path: "b.py", content: "new" }, undefined, "new", undefined],
  ];
  for (const [id, tool, input, before, after, problem] of cases) {
    test(id, () => {
      const change = proposedChange(tool, input, before);
      assert.equal(change?.after, after);
      assert.equal(change?.problem, problem);
    });
  }
  test("a shell command changes no file", () => assert.equal(proposedChange("run_shell_command", { command: "ls" }, ""), undefined));
});

test("a session in the side bar reads: current · size · age · imported", () => {
  const now = new Date("2026-12-01T01:00:00Z");
  const text = sessionDescription(
    sessionInfo({ sessionId: "cc-1", title: "x", updatedAt: "2026-12-01T00:57:00Z", usage: usage(), source: "import" }),
    true,
    now,
  );
  assert.equal(text, "current · 48.2k · 3 min ago · imported");
});

describe("server messages in VS Code's words", () => {
  const cases: [string, string, RegExp, RegExp][] = [
    [
      "method-and-class",
      "compact/chat: SessionBusy: session ses_1 is open for writing in another compact-lsp server (process 42); start a new session here (compact/newSession).",
      /^Session ses_1 is open .* start a new session here New Chat\.$/,
      /compact\/|SessionBusy/,
    ],
    ["unknown-session", "compact/selectSession: unknown session 'x'; list sessions with compact/sessions", /list sessions with the Sessions view$/, /compact\//],
    ["settings-stay", "compactLsp.server.pythonPath is /nowhere/python", /^compactLsp\.server\.pythonPath is/, /^CompactLsp/],
    [
      "no-api-key",
      "No Anthropic API key: set ANTHROPIC_API_KEY for the language server.",
      /^No Anthropic API key: Set API Key stores one for Compact; then send your message again\.$/,
      /ANTHROPIC_API_KEY|language server/,
    ],
  ];
  for (const [id, message, wanted, unwanted] of cases) {
    test(id, () => {
      const text = plainMessage(message);
      assert.match(text, wanted);
      assert.doesNotMatch(text, unwanted);
    });
  }
  test("Claude Code's refusal says Import to continue, never the class, the method or the CLI", () => {
    const error = new ResponseError(-32803, "session claude-1 is Claude Code's live transcript … (compact/importSession) …", {
      kind: "read_only",
      owner: { agent: "Claude Code" },
    });
    const outcome = failureOutcome("The agent's turn", error);
    assert.equal(outcome.severity, "info");
    assert.match(outcome.text, /Claude Code's live session, read-only here.*Import to continue/);
    assert.doesNotMatch(outcome.text, /OwnedByClaudeCode|compact\/|compact-lsp/);
  });
  test("any agent's refusal names that agent (Codex, Qwen Code), never Claude Code or another window", () => {
    for (const agent of ["Codex", "Qwen Code"]) {
      const error = new ResponseError(-32803, `session x is a ${agent} session, followed read-only`, { kind: "read_only", owner: { agent } });
      const outcome = failureOutcome("Compaction", error);
      assert.match(outcome.text, new RegExp(`${agent}'s live session, read-only here: ${agent} owns its context.*Import to continue`));
      assert.doesNotMatch(outcome.text, /Claude Code|another window/);
    }
  });
  test("another window's lock says where to continue, in the user's words (no process id)", () => {
    const error = new ResponseError(-32803, "SessionBusy: …", { kind: "read_only", owner: { pid: 4242 } });
    const text = failureOutcome("Compaction", error).text;
    assert.match(text, /^This chat is open in another window, which writes it; here it is read-only\..*New Chat/);
    assert.doesNotMatch(text, /4242|process|SessionBusy/);
    assert.ok(writtenInAnotherWindow(error));
    assert.ok(!writtenInAnotherWindow(new ResponseError(-32803, "…", { kind: "read_only", owner: { agent: "Codex" } })));
  });
});

test("a manual compaction refused as not smaller says so plainly, with figures as everywhere and a way forward", () => {
  const outcome = compactOutcome({
    changed: false,
    kind: "not_smaller",
    reason:
      "The compacted context (9120 tokens: summary 6000, re-attached files and plan 2000, system prompt and memory 1120) " +
      "would not be smaller than the current one (8800 tokens); nothing changed.",
  } as unknown as CompactResult);
  assert.equal(outcome.severity, "info");
  assert.equal(
    outcome.text,
    "Not compacted: a summary would not make the conversation smaller (9.1k tokens after, against 8.8k now), so " +
      "nothing changed. Microcompact Now clears old tool results instead; a full compaction pays off once the " +
      "conversation has grown.",
  );
  assert.deepEqual(outcome.actions, ["Microcompact Now"]);
  assert.ok(!/\d{4,} tokens|system prompt and memory/.test(outcome.text), outcome.text); // no raw figures
});

test("a toast names the product once: never twice, never missing before 'Compaction'", () => {
  assert.equal(toastText("Compaction cancelled."), "Compact: Compaction cancelled.");
  assert.equal(toastText("Compacted 3 results."), "Compact: Compacted 3 results.");
  assert.equal(toastText("Compact's server is not running."), "Compact's server is not running.");
  assert.equal(toastText("Compact: already named."), "Compact: already named.");
});
