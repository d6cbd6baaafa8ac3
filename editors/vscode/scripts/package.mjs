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
const run = (command, args) =>
  execFileSync(command, args, { stdio: "inherit" });

run(python, ["scripts/bundle_server.py", target]);
run(process.execPath, ["esbuild.mjs", "--production"]);
const vsce = path.resolve("node_modules/@vscode/vsce/vsce");
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
]);
