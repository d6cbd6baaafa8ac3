// Generated from the settings' declarations by `python -m compact_lsp.cli.generate_settings`; do not edit.
// The server settings VS Code offers (package.json's contributes.configuration, generated beside this).

export type SettingKind = "string" | "int" | "number" | "bool" | "strings" | "threshold";

/** Every server setting VS Code offers, by its dotted key under "compactLsp" (also its camelCase path on the wire). */
export const SERVER_SETTING_KEYS: ReadonlyArray<readonly [string, SettingKind]> = [
  ["contextWindow", "int"],
  ["model", "string"],
  ["compactionModel", "string"],
  ["baseUrl", "string"],
  ["readTools", "strings"],
  ["sessionDir", "string"],
  ["preCompactCommand", "string"],
  ["additionalDirectories", "strings"],
  ["memory.projectRoot", "string"],
  ["memory.userRoot", "string"],
  ["memory.teamRoot", "string"],
  ["microcompact.keepRecent", "int"],
  ["microcompact.idleMinutes", "number"],
  ["microcompact.sizeThresholdTokens", "int"],
  ["microcompact.sizeThresholdPercent", "number"],
  ["microcompact.compactableTools", "strings"],
  ["rehydration.maxFiles", "int"],
  ["rehydration.tokenBudget", "int"],
  ["rehydration.maxTokensPerFile", "int"],
  ["rehydration.budgetPercent", "number"],
  ["rehydration.filePercent", "number"],
  ["autoCompact.enabled", "bool"],
  ["autoCompact.threshold", "threshold"],
  ["autoCompact.summaryPercent", "number"],
  ["autoCompact.headroomPercent", "number"],
  ["sessionMemory.enabled", "bool"],
  ["sessionMemory.useModel", "bool"],
  ["sessionMemory.firstAfterTokens", "int"],
  ["sessionMemory.everyTokens", "int"],
  ["sessionMemory.minToolCalls", "int"],
  ["agent.maxTokens", "int"],
  ["agent.maxRounds", "int"],
  ["agent.shell", "bool"],
  ["agent.maxRetries", "int"],
  ["agent.timeout", "number"],
];
