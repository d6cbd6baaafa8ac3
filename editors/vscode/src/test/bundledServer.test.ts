import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { bundledLaunch, parseManifest } from "../model/bundledServer";
import { ServerNotFoundError, serverLaunch } from "../model/serverSettings";
import { PROTOCOL_VERSION, versionMismatch } from "../model/serverVersion";
import { config } from "./fixtures";

const manifest = {
  serverVersion: "0.1.0",
  pythonVersions: ["3.11", "3.12", "3.13"],
  target: "linux-x64",
};
const versions: Record<string, string> = {
  "/usr/bin/python3": "3.10",
  "/opt/py/bin/python3.12": "3.12",
};
const probe = (command: string) => versions[command];

test("the first Python whose version is bundled runs the server, with that version's libraries first", () => {
  const launch = bundledLaunch(
    "/ext/bundled",
    manifest,
    [
      { command: "/usr/bin/python3", origin: "on PATH" },
      {
        command: "/opt/py/bin/python3.12",
        origin: "selected in the Python extension",
      },
    ],
    probe,
  );
  assert.deepEqual(launch, {
    command: "/opt/py/bin/python3.12",
    args: ["-m", "compact_lsp"],
    source: "bundled",
    env: {
      PYTHONPATH: ["/ext/bundled/libs/cp312", "/ext/bundled/libs/common"].join(
        path.delimiter,
      ),
      PYTHONNOUSERSITE: "1",
    },
  });
});

test("a too-old Python gets one message naming it and what to install", () => {
  const problem = bundledLaunch(
    "/ext/bundled",
    manifest,
    [{ command: "/usr/bin/python3", origin: "on PATH" }],
    probe,
  );
  assert.equal(typeof problem, "string");
  assert.match(
    problem as string,
    /\/usr\/bin\/python3 is Python 3\.10 \(on PATH\)/,
  );
  assert.match(problem as string, /Install Python 3\.11 or newer/);
});

test("no Python at all: the message says so; a compact-lsp on PATH is still used", () => {
  const problem = bundledLaunch("/ext/bundled", manifest, [], probe);
  assert.match(problem as string, /no Python was found/);
  const onPath = serverLaunch(
    config({}),
    () => "/usr/local/bin/compact-lsp",
    () => problem,
  );
  assert.equal(onPath.source, "PATH");
  assert.throws(
    () =>
      serverLaunch(
        config({}),
        () => undefined,
        () => problem,
      ),
    (error: unknown) =>
      error instanceof ServerNotFoundError &&
      /no Python was found/.test(error.message),
  );
});

test("the configured command wins over the bundled server; a damaged manifest means no bundle", () => {
  const bundled = () =>
    bundledLaunch(
      "/ext/bundled",
      manifest,
      [{ command: "/opt/py/bin/python3.12", origin: "x" }],
      probe,
    );
  assert.equal(
    serverLaunch(
      config({ "server.command": ["/opt/c/compact-lsp"] }),
      () => undefined,
      bundled,
    ).source,
    "server.command",
  );
  assert.equal(
    serverLaunch(config({}), () => "/usr/local/bin/compact-lsp", bundled)
      .source,
    "bundled",
  );
  assert.equal(parseManifest("{not json"), undefined);
});

test("a server whose protocol version differs is named older or newer, with what to update", () => {
  assert.equal(
    versionMismatch(
      {
        compactLsp: {
          serverVersion: "0.1.0",
          protocolVersion: PROTOCOL_VERSION,
        },
      },
      "0.1.0",
    ),
    undefined,
  );
  assert.match(
    versionMismatch(undefined, "0.0.9") ?? "",
    /compact-lsp 0\.0\.9\) is older than this extension: it predates/,
  );
  assert.match(
    versionMismatch(
      { compactLsp: { protocolVersion: PROTOCOL_VERSION + 1 } },
      "9.0",
    ) ?? "",
    /is newer than this extension.*Update the extension\./,
  );
});
