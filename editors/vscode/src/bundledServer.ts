// Finds a Python for the server bundled in the .vsix: the Python extension's selected interpreter, else python3
// (python3.13 … python3.11, python) on PATH. The rules live in model/bundledServer.ts.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { PythonCandidate } from "./model/bundledServer";
import { bundledLaunch, parseManifest } from "./model/bundledServer";
import type { ServerLaunch } from "./model/serverSettings";
import { findOnPath } from "./settings";

/** dist/extension.js sits in dist/ of the extension; bundled/ beside it. */
export const BUNDLE_DIR = path.join(__dirname, "..", "bundled");

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
  };
}

/** The interpreter selected in the Python extension (ms-python.python), when it is installed. */
async function selectedInterpreter(): Promise<string | undefined> {
  const extension =
    vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive
      ? extension.exports
      : await extension.activate();
    const selected = api.environments?.getActiveEnvironmentPath(
      vscode.workspace.workspaceFolders?.[0]?.uri,
    ).path;
    return selected !== undefined &&
      selected !== "" &&
      path.isAbsolute(selected)
      ? selected
      : undefined;
  } catch {
    return undefined;
  }
}

function probe(command: string): string | undefined {
  try {
    const out = execFileSync(
      command,
      ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
      {
        timeout: 10_000,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    return /^\d+\.\d+$/.test(out.trim()) ? out.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The bundled server's launch (or why no Python can run it), for serverLaunch; undefined when this build of the
 * extension carries no server (a development build).
 */
export async function bundledServer(): Promise<
  () => ServerLaunch | string | undefined
> {
  let manifestText: string;
  try {
    manifestText = fs.readFileSync(
      path.join(BUNDLE_DIR, "manifest.json"),
      "utf8",
    );
  } catch {
    return () => undefined;
  }
  const manifest = parseManifest(manifestText);
  if (manifest === undefined) {
    return () => undefined;
  }
  const candidates: PythonCandidate[] = [];
  const selected = await selectedInterpreter();
  if (selected !== undefined) {
    candidates.push({
      command: selected,
      origin: "selected in the Python extension",
    });
  }
  for (const name of [
    "python3",
    ...[...manifest.pythonVersions].reverse().map((v) => `python${v}`),
    "python",
  ]) {
    const found = findOnPath(name);
    if (found !== undefined) {
      candidates.push({ command: found, origin: "on PATH" });
    }
  }
  return () => bundledLaunch(BUNDLE_DIR, manifest, candidates, probe);
}
