// Settings → the server's initializationOptions / didChangeConfiguration payload, and how to start the server.
// Pure: the vscode WorkspaceConfiguration is passed in behind the ConfigReader interface.

import { SERVER_SETTING_KEYS, type SettingKind as Kind } from "./settingKeys.generated";

/** What the extension needs of vscode.WorkspaceConfiguration (section "compactLsp"). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type ServerSettings = { [key: string]: JsonValue };

/** Every server setting VS Code offers, generated from the server's declarations with package.json's settings. */
export { SERVER_SETTING_KEYS };

/** Settings that only change how the server is started: a change needs a restart. */
export const LAUNCH_SETTING_KEYS = ["server.command", "server.pythonPath"] as const;

/**
 * The settings object the server parses (docs/protocol.md). An unset, null or blank value is left out so the
 * server applies its own default (which may depend on the workspace, like memory.projectRoot); a value of the
 * wrong type is left out too, and reported in `problems`. With `unset: "null"` (a didChangeConfiguration, which the
 * server merges onto the settings in force) an unset value goes as null instead, which puts the server's default
 * back: a setting the user reset must not keep its old value until a restart.
 */
export function toServerSettings(
  config: ConfigReader,
  problems: string[] = [],
  unset: "omit" | "null" = "omit",
): ServerSettings {
  const out: ServerSettings = {};
  for (const [key, kind] of SERVER_SETTING_KEYS) {
    const value = coerce(config.get<unknown>(key), kind);
    if (value === undefined) {
      if (unset === "null") {
        setPath(out, key.split("."), null);
      }
      continue;
    }
    if (value === INVALID) {
      problems.push(`compactLsp.${key} has an invalid value; the server's default is used.`);
      continue;
    }
    setPath(out, key.split("."), value);
  }
  return out;
}

const INVALID = Symbol("invalid");

function coerce(value: unknown, kind: Kind): JsonValue | undefined | typeof INVALID {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value === "string" && value.trim() === "" && kind !== "strings") {
    return undefined;
  }
  switch (kind) {
    case "string":
      return typeof value === "string" ? value.trim() : INVALID;
    case "int":
      return typeof value === "number" && Number.isInteger(value) ? value : INVALID;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? value : INVALID;
    case "bool":
      return typeof value === "boolean" ? value : INVALID;
    case "strings":
      return Array.isArray(value) && value.every((item) => typeof item === "string") ? (value as string[]) : INVALID;
    case "threshold":
      return coerceThreshold(value);
  }
}

/** 150000 and "150000" → 150000; "80%" and " 80 % " → "80%". */
function coerceThreshold(value: unknown): JsonValue | typeof INVALID {
  if (typeof value === "number") {
    return Number.isInteger(value) && value > 0 ? value : INVALID;
  }
  if (typeof value !== "string") {
    return INVALID;
  }
  const compact = value.replace(/\s+/g, "");
  if (/^\d+$/.test(compact)) {
    return Number(compact);
  }
  if (/^\d+(\.\d+)?%$/.test(compact)) {
    return compact;
  }
  return INVALID;
}

function setPath(target: ServerSettings, path: string[], value: JsonValue): void {
  let node = target;
  for (const part of path.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) {
      node[part] = {};
    }
    node = node[part] as ServerSettings;
  }
  node[path[path.length - 1]] = value;
}

/** The didChangeConfiguration params: the protocol's `{"settings": {"compactLsp": {...}}}`. */
export function didChangeConfigurationParams(settings: ServerSettings): { settings: { compactLsp: ServerSettings } } {
  return { settings: { compactLsp: settings } };
}

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Shown in the log: which setting or lookup chose this command. */
  source: "server.command" | "server.pythonPath" | "bundled" | "PATH";
  /** Added to the server's environment (the bundled server's PYTHONPATH). */
  env?: Record<string, string>;
}

/** The server cannot be started as configured; `setting` names the setting to fix (for an "Open Settings" button). */
export class ServerNotFoundError extends Error {
  constructor(
    message: string,
    readonly setting?: string,
  ) {
    super(message);
  }
}

/** What a launch check needs to know about a file: "missing", "not-executable" or "ok". */
export type FileCheck = (file: string) => "missing" | "not-executable" | "ok";

/**
 * Refuses a launch whose command is a path that does not exist or cannot run, naming the setting, so the user reads
 * the cause ("… does not exist") instead of the language client's "couldn't create connection". Bare command names
 * are left to the spawn (they are looked up on PATH).
 */
export function checkLaunch(launch: ServerLaunch, check: FileCheck): void {
  if (launch.source === "PATH" || !/[\\/]/.test(launch.command)) {
    return;
  }
  const state = check(launch.command);
  const setting = `compactLsp.${launch.source}`;
  if (state === "missing") {
    throw new ServerNotFoundError(`${setting} is ${launch.command}, which does not exist (ENOENT).`, setting);
  }
  if (state === "not-executable") {
    throw new ServerNotFoundError(`${setting} is ${launch.command}, which is not an executable file.`, setting);
  }
}

/**
 * How to start the server, without `--stdio` (the language client appends it): `compactLsp.server.command`, else
 * `compactLsp.server.pythonPath -m compact_lsp`, else the server bundled in the extension (`bundled`: a launch, or
 * why no Python can run it), else `compact-lsp` found on PATH.
 */
export function serverLaunch(
  config: ConfigReader,
  findOnPath: (name: string) => string | undefined,
  bundled: () => ServerLaunch | string | undefined = () => undefined,
): ServerLaunch {
  const command = config.get<unknown>("server.command");
  const parts = typeof command === "string" ? [command] : Array.isArray(command) ? command : [];
  const cleaned = parts.filter((part): part is string => typeof part === "string" && part.trim() !== "");
  if (cleaned.length > 0) {
    return { command: cleaned[0], args: cleaned.slice(1), source: "server.command" };
  }
  const python = config.get<unknown>("server.pythonPath");
  if (typeof python === "string" && python.trim() !== "") {
    return { command: python.trim(), args: ["-m", "compact_lsp"], source: "server.pythonPath" };
  }
  const fromBundle = bundled();
  if (typeof fromBundle === "object") {
    return fromBundle;
  }
  const found = findOnPath("compact-lsp");
  if (found !== undefined) {
    return { command: found, args: [], source: "PATH" };
  }
  if (typeof fromBundle === "string") {
    throw new ServerNotFoundError(fromBundle, "compactLsp.server.pythonPath");
  }
  throw new ServerNotFoundError(
    "compact-lsp was not found on PATH. Install it (pip install compact-lsp) or set " +
      "compactLsp.server.command or compactLsp.server.pythonPath.",
  );
}

/** The server process environment: the editor's, plus the API key from SecretStorage when one is set. */
export function serverEnvironment(
  base: Record<string, string | undefined>,
  apiKey: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  if (apiKey !== undefined && apiKey !== "") {
    env.ANTHROPIC_API_KEY = apiKey;
  }
  return env;
}

/** The Settings editor's tabs, by VS Code's own command ids (each takes `{ query }`). */
export type SettingsTab = "workbench.action.openGlobalSettings" | "workbench.action.openWorkspaceSettings" | "workbench.action.openRemoteSettings";

/**
 * The tab of the Settings editor where the user can change `setting`, in VS Code's own terms. A machine-scoped
 * setting (the server's launch, its paths) belongs to the machine the extension runs on: User settings in a local
 * window, Remote settings in a remote one (SSH, WSL, a container, VS Code in a browser), where the User tab would say
 * "No Settings Found". Any other setting opens where its value comes from: Workspace when the workspace (or one of
 * its folders) sets it, else User.
 */
export function settingsTab(where: { machine: boolean; remote: boolean; inWorkspace: boolean }): SettingsTab {
  if (where.machine) {
    return where.remote ? "workbench.action.openRemoteSettings" : "workbench.action.openGlobalSettings";
  }
  return where.inWorkspace ? "workbench.action.openWorkspaceSettings" : "workbench.action.openGlobalSettings";
}
