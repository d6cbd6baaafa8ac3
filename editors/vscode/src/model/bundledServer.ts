// The server bundled in the .vsix (bundled/, written by scripts/bundle_server.py): which Python can run it, and how.
import * as path from "node:path";
import type { ServerLaunch } from "./serverSettings";

/** bundled/manifest.json. */
export interface BundleManifest {
  serverVersion: string;
  /** CPython versions with libraries in bundled/libs/cp3XX, e.g. ["3.11", "3.12", "3.13"]. */
  pythonVersions: string[];
  target: string;
}

/** A Python to try, and where it came from (shown to the user when none fits). */
export interface PythonCandidate {
  command: string;
  origin: string;
}

/** The "major.minor" version of a Python, or undefined when it does not run. */
export type PythonProbe = (command: string) => string | undefined;

export function parseManifest(text: string): BundleManifest | undefined {
  try {
    const value = JSON.parse(text) as Partial<BundleManifest>;
    if (
      typeof value.serverVersion === "string" &&
      Array.isArray(value.pythonVersions)
    ) {
      const versions = value.pythonVersions.filter(
        (v): v is string => typeof v === "string",
      );
      return {
        serverVersion: value.serverVersion,
        pythonVersions: versions,
        target: String(value.target ?? ""),
      };
    }
  } catch {
    // a damaged manifest: as if nothing were bundled
  }
  return undefined;
}

function oldest(manifest: BundleManifest): string {
  return manifest.pythonVersions[0] ?? "3.11";
}

/**
 * The bundled server run by the first candidate whose version the bundle has libraries for; else one message that
 * says which Pythons were found and what to install.
 */
export function bundledLaunch(
  bundleDir: string,
  manifest: BundleManifest,
  candidates: PythonCandidate[],
  probe: PythonProbe,
): ServerLaunch | string {
  const seen: string[] = [];
  const tried = new Set<string>();
  for (const candidate of candidates) {
    if (tried.has(candidate.command)) {
      continue;
    }
    tried.add(candidate.command);
    const version = probe(candidate.command);
    if (version === undefined) {
      continue;
    }
    if (manifest.pythonVersions.includes(version)) {
      const libs = path.join(bundleDir, "libs");
      const pythonPath = [
        path.join(libs, `cp${version.replace(".", "")}`),
        path.join(libs, "common"),
      ];
      return {
        command: candidate.command,
        args: ["-m", "compact_lsp"],
        source: "bundled",
        env: {
          PYTHONPATH: pythonPath.join(path.delimiter),
          PYTHONNOUSERSITE: "1",
        },
      };
    }
    seen.push(
      `${candidate.command} is Python ${version} (${candidate.origin})`,
    );
  }
  const supported = manifest.pythonVersions.join(", ");
  const found =
    seen.length > 0
      ? `${seen.join("; ")}, but the`
      : "no Python was found, and the";
  return (
    `Compact could not start its bundled server: ${found} server needs Python ${supported}. ` +
    `Install Python ${oldest(manifest)} or newer (python.org, or your package manager's python3), or select one ` +
    "in the Python extension, or set compactLsp.server.pythonPath."
  );
}
