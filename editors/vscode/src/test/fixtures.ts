// Shared test data: usages and a fake of vscode.WorkspaceConfiguration.
import type { ConfigReader } from "../model/serverSettings";
import type { SessionInfo, Usage, UsageByKind } from "../protocol";

/** Kinds a test leaves out count 0, as the server sends every kind. */
export function usage(overrides: Partial<Omit<Usage, "byKind">> & { byKind?: Partial<UsageByKind> } = {}): Usage {
  const { byKind, ...rest } = overrides;
  const zero: UsageByKind = { system: 0, userText: 0, assistantText: 0, toolUse: 0, toolResult: 0, attachments: 0, memory: 0 };
  return {
    total: 48211,
    contextWindow: 200000,
    percent: 24.1,
    autoCompactThreshold: 167000,
    warningThreshold: 147000,
    level: "ok",
    byKind: { system: 1200, userText: 3100, assistantText: 5400, toolUse: 2011, toolResult: 36000, attachments: 0, memory: 500 },
    estimated: 48211,
    ...rest,
    ...(byKind !== undefined ? { byKind: { ...zero, ...byKind } } : {}),
  };
}

/** A compact/sessions item as the server sends it. */
export function sessionInfo(overrides: Partial<SessionInfo> = {}): SessionInfo {
  const u = overrides.usage ?? usage();
  return {
    sessionId: "ses_3f1c",
    title: "fix login",
    source: "chat",
    createdAt: "2026-11-30T07:00:00Z",
    updatedAt: "2026-11-30T08:00:00Z",
    messages: 12,
    tokens: u.total,
    current: false,
    damaged: false,
    damagedRecords: 0,
    readOnly: false,
    usage: u,
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
