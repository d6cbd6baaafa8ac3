// Reads the "compactLsp" configuration; the mapping itself lives in model/serverSettings.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { ServerLaunch, ServerSettings } from "./model/serverSettings";
import { LAUNCH_SETTING_KEYS, checkLaunch, serverLaunch, toServerSettings } from "./model/serverSettings";

export const SECTION = "compactLsp";
export const API_KEY_SECRET = "compactLsp.anthropicApiKey";

export function configuration(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

/** The settings for initializationOptions (unset values left out), or for a change (`unset: "null"`: reset). */
export function currentServerSettings(problems: string[] = [], unset: "omit" | "null" = "omit"): ServerSettings {
  return toServerSettings(configuration(), problems, unset);
}

/**
 * How to start the server: the one place that decides it (model/serverSettings.ts holds the rules). Throws a
 * ServerNotFoundError that names the setting to fix.
 */
export function currentServerLaunch(
  bundled: () => ServerLaunch | string | undefined = () => undefined,
): ServerLaunch {
  const launch = serverLaunch(configuration(), findOnPath, bundled);
  checkLaunch(launch, checkFile);
  return launch;
}

function checkFile(file: string): "missing" | "not-executable" | "ok" {
  try {
    if (!fs.statSync(file).isFile()) {
      return "not-executable";
    }
    fs.accessSync(file, fs.constants.X_OK);
    return "ok";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "not-executable";
  }
}

export function affectsServerSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SECTION);
}

export function affectsLaunch(event: vscode.ConfigurationChangeEvent): boolean {
  return LAUNCH_SETTING_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}

/** An executable named `name` in a directory of PATH (with PATHEXT on Windows). */
export function findOnPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir !== "");
  const extensions = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of dirs) {
    for (const extension of extensions) {
      const candidate = path.join(dir, name + extension);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) {
          return candidate;
        }
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined;
}
