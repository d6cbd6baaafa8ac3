// What the status bar item shows for a given usage. The vscode adapter (statusBar.ts) only copies these fields.
import type { Usage } from "../protocol";
import { Commands } from "./commandIds";
import { nextCompactionLine } from "./nextCompaction";
import { formatPercent, formatTokens, formatUsage, kindLabel } from "./usageFormat";

export type StatusBackground = "none" | "warning";

export interface StatusBarState {
  text: string;
  tooltip: string;
  background: StatusBackground;
  /** The command run on click. */
  command: string;
}


export type ServerState = "starting" | "running" | "stopped" | "restricted";

export function statusBarState(
  usage: Usage | undefined,
  server: ServerState = "running",
  owner?: string,
): StatusBarState {
  if (server === "restricted") {
    return {
      text: "$(shield) Compact",
      tooltip: "Compact is paused in Restricted Mode: trust this folder to start the server. Click to manage trust.",
      background: "none",
      command: "workbench.trust.manage",
    };
  }
  if (server === "stopped") {
    return {
      text: "$(debug-disconnect) Compact",
      tooltip: "Compact: the server is not running. Click to see the server log.",
      background: "warning",
      command: Commands.showServerLog,
    };
  }
  if (server === "starting") {
    return {
      text: "$(loading~spin) Compact",
      tooltip: "Compact: starting the server…",
      background: "none",
      command: Commands.showServerLog,
    };
  }
  if (usage === undefined) {
    return {
      text: "$(pulse) Compact",
      tooltip: "Compact: no active session yet.",
      background: "none",
      command: Commands.showUsage,
    };
  }
  const lines = [
    `Context: ${formatUsage(usage)}`,
    `Auto-compact at ${formatTokens(usage.autoCompactThreshold)}, warning from ${formatTokens(usage.warningThreshold)}`,
  ];
  const kinds = Object.entries(usage.byKind)
    .filter(([, tokens]) => tokens > 0)
    .sort((a, b) => b[1] - a[1]);
  for (const [kind, tokens] of kinds) {
    const share = usage.contextWindow > 0 ? (100 * tokens) / usage.contextWindow : 0;
    lines.push(`  ${kindLabel(kind)}: ${formatTokens(tokens)} (${formatPercent(share)})`);
  }
  if (usage.reported !== undefined) {
    lines.push(`Reported by the API for the last request: ${formatTokens(usage.reported)} (estimated above: what is in the conversation now)`);
  }
  const next = nextCompactionLine(usage, owner);
  if (next !== undefined) {
    lines.push(next);
  }
  // turned off, the level is the window's filling (docs/protocol.md, Usage): nothing is about to compact
  const off = usage.nextCompaction !== undefined && usage.nextCompaction.disabledBy !== null;
  if (usage.level === "critical") {
    lines.push(off ? "Near the end of the window, and nothing compacts it by itself." : "At the auto-compact threshold: the next turn compacts.");
  } else if (usage.level === "warning") {
    lines.push(off ? "Filling the window, and nothing compacts it by itself." : "Near the auto-compact threshold.");
  }
  lines.push("Click to show the context usage.");
  return {
    text: `$(pulse) ${formatUsage(usage)}`,
    tooltip: lines.join("\n"),
    background: usage.level === "ok" ? "none" : "warning",
    command: Commands.showUsage,
  };
}
