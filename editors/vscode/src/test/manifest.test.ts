// package.json is the extension's public face: commands in the palette, the engine it runs on.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { Commands } from "../model/commandIds";
import { ServerCommands } from "../protocol";

const PACKAGE_ROOT = path.resolve(__dirname, "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8"));

test("every command is in the palette under the Compact category", () => {
  const contributed: { command: string; category: string }[] = manifest.contributes.commands;
  assert.deepEqual(contributed.map((c) => c.command).sort(), Object.values(Commands).sort());
  assert.ok(contributed.every((c) => c.category === "Compact"));
});

test("the extension's commands never shadow the server's (the language client registers those)", () => {
  const ours = new Set<string>(Object.values(Commands));
  for (const serverCommand of Object.values(ServerCommands)) {
    assert.ok(!ours.has(serverCommand), serverCommand);
  }
});

test("@types/vscode is not newer than engines.vscode (vsce refuses to package otherwise)", () => {
  const engine = /^\^?(\d+)\.(\d+)/.exec(manifest.engines.vscode);
  const types = JSON.parse(
    fs.readFileSync(path.join(PACKAGE_ROOT, "node_modules", "@types", "vscode", "package.json"), "utf8"),
  );
  const typesVersion = /^(\d+)\.(\d+)/.exec(types.version);
  assert.ok(engine !== null && typesVersion !== null);
  const [, engineMajor, engineMinor] = engine.map(Number);
  const [, typesMajor, typesMinor] = typesVersion.map(Number);
  assert.ok(
    typesMajor < engineMajor || (typesMajor === engineMajor && typesMinor <= engineMinor),
    `@types/vscode ${types.version} is newer than engines.vscode ${manifest.engines.vscode}`,
  );
});

test("the extension page has an icon and README links that resolve (relative ones become absolute in the .vsix)", () => {
  const icon = fs.readFileSync(path.join(PACKAGE_ROOT, manifest.icon));
  assert.deepEqual([...icon.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, "the icon is at least 128×128");
  const packageScript = fs.readFileSync(path.join(PACKAGE_ROOT, "scripts", "package.mjs"), "utf8");
  assert.match(packageScript, /"--baseContentUrl",\s*base,\s*"--baseImagesUrl",\s*base/);
  const readme = fs.readFileSync(path.join(PACKAGE_ROOT, "README.md"), "utf8");
  const targets = [...readme.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((match) => match[1]);
  assert.ok(targets.length > 0);
  for (const target of targets.filter((t) => !/^[a-z]+:/.test(t))) {
    assert.ok(fs.existsSync(path.resolve(PACKAGE_ROOT, target)), `README links to a missing file: ${target}`);
  }
});

test("every view and view container the manifest names has its icon, and each view a provider id", () => {
  for (const container of manifest.contributes.viewsContainers.activitybar) {
    assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, container.icon)), container.icon);
  }
  const ids = manifest.contributes.views.compact.map((view: { id: string }) => view.id);
  assert.deepEqual(ids, ["compactLsp.chat", "compactLsp.sessions"]);
});
