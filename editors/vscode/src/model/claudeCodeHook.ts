// "Compact: Install the Claude Code Hook": the choices of its quick pick and what the server's answer reads as. Pure.
import type { InstallClaudeCodeHookArguments, InstallClaudeCodeHookResult } from "../protocol";
import type { Outcome } from "./commandModel";

export interface HookChoice {
  label: string;
  detail: string;
  argument: InstallClaudeCodeHookArguments;
}

/** Install for this project (without a workspace folder there is none), for all projects, or remove either. */
export function hookChoices(hasWorkspace: boolean): HookChoice[] {
  const project: HookChoice[] = hasWorkspace
    ? [{ label: "This project", detail: ".claude/settings.local.json (not committed)", argument: { scope: "project" } }]
    : [];
  const removeProject: HookChoice[] = hasWorkspace
    ? [{ label: "Remove from this project", detail: ".claude/settings.local.json", argument: { scope: "project", uninstall: true } }]
    : [];
  return [
    ...project,
    { label: "All projects", detail: "~/.claude/settings.json", argument: { scope: "user" } },
    ...removeProject,
    { label: "Remove from all projects", detail: "~/.claude/settings.json", argument: { scope: "user", uninstall: true } },
  ];
}

/** The server's message, with the backup when the file was changed and had one. */
export function describeHookChange(result: InstallClaudeCodeHookResult, uninstall: boolean): Outcome {
  const backup = result.changed && result.backup !== null ? ` The previous file is kept as ${result.backup}.` : "";
  const next = result.changed && !uninstall ? " Claude Code runs it after its next compaction." : "";
  return { severity: "info", text: `${capitalize(result.message)}.${backup}${next}` };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
