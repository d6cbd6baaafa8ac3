import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import {
  SERVER_SETTING_KEYS,
  ServerNotFoundError,
  didChangeConfigurationParams,
  serverEnvironment,
  serverLaunch,
  settingsTab,
  toServerSettings,
} from "../model/serverSettings";
import { config } from "./fixtures";

const PACKAGE_ROOT = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8"));
const properties: Record<string, { default?: unknown }> = manifest.contributes.configuration.properties;

/** What VS Code returns when the user changed nothing: every schema default. */
function defaults(): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    values[key.replace(/^compactLsp\./, "")] = schema.default;
  }
  return values;
}

test("schema defaults give the protocol's defaults, nested, without the client-only keys", () => {
  assert.deepEqual(toServerSettings(config(defaults())), {
    contextWindow: 200000,
    model: "claude-sonnet-4-5",
    microcompact: { keepRecent: 5, idleMinutes: 60, sizeThresholdPercent: 20 },
    rehydration: { maxFiles: 50, budgetPercent: 10, filePercent: 4 },
    additionalDirectories: [],
    sessionMemory: { enabled: true, useModel: true, firstAfterTokens: 10000, everyTokens: 5000, minToolCalls: 3 },
    autoCompact: { enabled: true, summaryPercent: 10, headroomPercent: 20 },
    readTools: ["read_file", "Read"],
    agent: { maxTokens: 8192, maxRounds: 50, shell: false, maxRetries: 2, timeout: 600 },
  });
});

test("every server setting is in package.json and every package.json setting is known", () => {
  const schemaKeys = Object.keys(properties).map((key) => key.replace(/^compactLsp\./, ""));
  const serverKeys = SERVER_SETTING_KEYS.map(([key]) => key);
  assert.deepEqual(schemaKeys.filter((key) => !key.startsWith("server.")).sort(), [...serverKeys].sort());
});

test("user values reach the server under their camelCase paths", () => {
  const settings = toServerSettings(
    config({
      ...defaults(),
      contextWindow: 1_000_000,
      compactionModel: "claude-haiku-4-5",
      baseUrl: "http://127.0.0.1:8765",
      "memory.teamRoot": "/srv/team-memory",
      "microcompact.idleMinutes": -1,
      "microcompact.compactableTools": ["Read", "Bash"],
      "autoCompact.threshold": "80%",
    }),
  );
  assert.equal(settings.contextWindow, 1_000_000);
  assert.equal(settings.compactionModel, "claude-haiku-4-5");
  assert.equal(settings.baseUrl, "http://127.0.0.1:8765");
  assert.deepEqual(settings.memory, { teamRoot: "/srv/team-memory" });
  assert.deepEqual(settings.microcompact, {
    keepRecent: 5,
    idleMinutes: -1,
    sizeThresholdPercent: 20,
    compactableTools: ["Read", "Bash"],
  });
  assert.deepEqual(settings.autoCompact, { enabled: true, threshold: "80%", summaryPercent: 10, headroomPercent: 20 });
});

describe("autoCompact.threshold", () => {
  const cases: [string, unknown, unknown][] = [
    ["tokens", 150000, 150000],
    ["tokens-typed-as-text", "150000", 150000],
    ["percent", "80%", "80%"],
    ["percent-with-spaces", " 80 % ", "80%"],
    ["fractional-percent", "82.5%", "82.5%"],
    ["blank-means-default", "", undefined],
    ["null-means-default", null, undefined],
  ];
  for (const [id, value, expected] of cases) {
    test(id, () => {
      const settings = toServerSettings(config({ "autoCompact.threshold": value }));
      const autoCompact = settings.autoCompact as Record<string, unknown> | undefined;
      assert.equal(autoCompact?.threshold, expected);
    });
  }
});

describe("invalid values are left out and reported", () => {
  const cases: [string, string, unknown][] = [
    ["threshold-words", "autoCompact.threshold", "eighty percent"],
    ["threshold-negative", "autoCompact.threshold", -5],
    ["window-fraction", "contextWindow", 1.5],
    ["window-text", "contextWindow", "big"],
    ["tools-not-strings", "readTools", ["Read", 3]],
    ["enabled-text", "autoCompact.enabled", "yes"],
  ];
  for (const [id, key, value] of cases) {
    test(id, () => {
      const problems: string[] = [];
      const settings = toServerSettings(config({ [key]: value, model: "m" }), problems);
      assert.deepEqual(settings, { model: "m" });
      assert.deepEqual(problems, [`compactLsp.${key} has an invalid value; the server's default is used.`]);
    });
  }
});

test("blank strings mean the server's default (the settings UI cannot enter null)", () => {
  const settings = toServerSettings(config({ baseUrl: "  ", "memory.projectRoot": "", sessionDir: "/tmp/s" }));
  assert.deepEqual(settings, { sessionDir: "/tmp/s" });
});

test("didChangeConfiguration carries the settings under compactLsp", () => {
  assert.deepEqual(didChangeConfigurationParams({ model: "m" }), { settings: { compactLsp: { model: "m" } } });
});

describe("server launch", () => {
  const onPath = (name: string): string | undefined => (name === "compact-lsp" ? "/usr/bin/compact-lsp" : undefined);
  const nowhere = (): undefined => undefined;
  const cases: [string, Record<string, unknown>, (name: string) => string | undefined, object][] = [
    ["command-wins", { "server.command": ["/opt/c/compact-lsp", "-v"], "server.pythonPath": "/py" }, onPath,
      { command: "/opt/c/compact-lsp", args: ["-v"], source: "server.command" }],
    ["command-as-string", { "server.command": "/opt/c/compact-lsp" }, onPath,
      { command: "/opt/c/compact-lsp", args: [], source: "server.command" }],
    ["python-module", { "server.command": [], "server.pythonPath": "/venv/bin/python" }, onPath,
      { command: "/venv/bin/python", args: ["-m", "compact_lsp"], source: "server.pythonPath" }],
    ["path-lookup", { "server.command": [], "server.pythonPath": null }, onPath,
      { command: "/usr/bin/compact-lsp", args: [], source: "PATH" }],
    ["blank-python-ignored", { "server.pythonPath": "  " }, onPath,
      { command: "/usr/bin/compact-lsp", args: [], source: "PATH" }],
  ];
  for (const [id, values, finder, expected] of cases) {
    test(id, () => assert.deepEqual(serverLaunch(config(values), finder), expected));
  }
  test("not-found-says-what-to-set", () => {
    assert.throws(() => serverLaunch(config({}), nowhere), (error: unknown) => {
      assert.ok(error instanceof ServerNotFoundError);
      assert.match(error.message, /compactLsp\.server\.command or compactLsp\.server\.pythonPath/);
      return true;
    });
  });
});

describe("server environment", () => {
  test("the API key from secret storage becomes ANTHROPIC_API_KEY", () => {
    const env = serverEnvironment({ PATH: "/bin", HOME: undefined }, "sk-ant-test");
    assert.deepEqual(env, { PATH: "/bin", ANTHROPIC_API_KEY: "sk-ant-test" });
  });
  test("without a stored key the editor's own variable is kept", () => {
    const env = serverEnvironment({ ANTHROPIC_API_KEY: "from-shell" }, undefined);
    assert.equal(env.ANTHROPIC_API_KEY, "from-shell");
  });
});

describe("Open Settings", () => {
  test("opens the tab where the setting can be changed, in plain VS Code terms", () => {
    const machine = Object.entries(manifest.contributes.configuration.properties as Record<string, { scope?: string }>)
      .filter(([, declared]) => declared.scope === "machine")
      .map(([key]) => key);
    assert.ok(machine.includes("compactLsp.server.command") && machine.includes("compactLsp.server.pythonPath"), machine.join());
    // the server's launch: the machine's settings, User in a local window, Remote in a remote one
    assert.equal(settingsTab({ machine: true, remote: false, inWorkspace: false }), "workbench.action.openGlobalSettings");
    assert.equal(settingsTab({ machine: true, remote: true, inWorkspace: false }), "workbench.action.openRemoteSettings");
    // any other setting: where its value comes from
    assert.equal(settingsTab({ machine: false, remote: true, inWorkspace: true }), "workbench.action.openWorkspaceSettings");
    assert.equal(settingsTab({ machine: false, remote: false, inWorkspace: false }), "workbench.action.openGlobalSettings");
  });
});
