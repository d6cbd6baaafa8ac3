// `npm run package`: bundles the server for this machine's platform (scripts/bundle_server.py), builds the
// extension and writes compact-lsp.vsix with `vsce package --target`. COMPACT_VSCODE_TARGET=linux-arm64 (etc.)
// packages for another target; PYTHON names the Python (>= 3.11, with pip) that runs the bundler.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const target =
  process.env.COMPACT_VSCODE_TARGET ?? `${process.platform}-${process.arch}`;
const repoPython = path.resolve("../../.venv/bin/python");
const python =
  process.env.PYTHON ?? (fs.existsSync(repoPython) ? repoPython : "python3");
// A failed step has already said what failed (its own output, above): end there, without Node's stack trace.
function run(command, args, step) {
  try {
    execFileSync(command, args, { stdio: "inherit" });
  } catch (error) {
    const how = error.code === "ENOENT" ? `${command} was not found` : `exit ${error.status ?? error.signal}`;
    console.error(`npm run package: ${step} failed (${how}).`);
    process.exit(1);
  }
}
function need(ok, message) {
  if (!ok) {
    console.error(`npm run package: ${message}`);
    process.exit(1);
  }
}

const vsce = path.resolve("node_modules/@vscode/vsce/vsce");
need(fs.existsSync(vsce), "the extension's Node packages are not installed: run `npm ci` in editors/vscode first.");
let pythonVersion = "";
try {
  pythonVersion = execFileSync(python, ["-c", "import sys, pip; print(sys.version_info >= (3, 11))"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  }).trim();
} catch {
  // said below
}
need(
  pythonVersion === "True",
  `${python} is not a Python 3.11+ with pip, which bundles the server: run ../../.ci/setup (it makes ` +
    "../../.venv) or name one with PYTHON=/path/to/python3.11.",
);

run(python, ["scripts/bundle_server.py", target], "bundling the server");
run(process.execPath, ["esbuild.mjs", "--production"], "building the extension (esbuild)");
const base =
  "https://github.com/compact-lsp/compact-lsp/raw/HEAD/editors/vscode";
run(process.execPath, [
  vsce,
  "package",
  "--no-dependencies",
  "--target",
  target,
  // the secret scan takes minutes over the ~4,000 files of third-party libraries (it found none)
  "--allow-package-all-secrets",
  "--baseContentUrl",
  base,
  "--baseImagesUrl",
  base,
  "--out",
  "compact-lsp.vsix",
], "packaging (vsce)");
