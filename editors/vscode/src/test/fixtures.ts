// Shared test data: usages and a fake of vscode.WorkspaceConfiguration.
import type { ConfigReader } from "../model/serverSettings";
import type { Usage } from "../protocol";

export function usage(overrides: Partial<Usage> = {}): Usage {
  return {
    total: 48211,
    contextWindow: 200000,
    percent: 24.1,
    autoCompactThreshold: 167000,
    warningThreshold: 147000,
    level: "ok",
    byKind: { system: 1200, userText: 3100, assistantText: 5400, toolUse: 2011, toolResult: 36000, attachments: 0, memory: 500 },
    estimated: 48211,
    ...overrides,
  };
}

/** Like vscode.WorkspaceConfiguration.get: dotted keys, `undefined` for unknown ones. */
export function config(values: Record<string, unknown>): ConfigReader {
  return {
    get<T>(key: string): T | undefined {
      return values[key] as T | undefined;
    },
  };
}
