// "Compact: Install the Claude Code Hook" / "… the Codex Hook" / "… the Qwen Code Hook" / "… the Gemini CLI Hook":
// the choices of their quick picks and what the server's answer reads as. Pure.
import type { InstallClaudeCodeHookArguments, InstallClaudeCodeHookResult } from "../protocol";
import type { Outcome } from "./commandModel";

export interface HookChoice {
  label: string;
  detail: string;
  argument: InstallClaudeCodeHookArguments;
}

/** The agent whose hook is installed: where its files are, and what happens next. */
export interface HookAgent {
  name: string;
  projectFile: string;
  userFile: string;
  after: string;
}

export const CLAUDE_CODE: HookAgent = {
  name: "Claude Code",
  projectFile: ".claude/settings.local.json (not committed)",
  userFile: "~/.claude/settings.json",
  after: " Claude Code runs it after its next compaction.",
};

export const CODEX: HookAgent = {
  name: "Codex",
  projectFile: ".codex/config.toml (read in trusted projects)",
  userFile: "~/.codex/config.toml",
  after: "",
};

export const QWEN_CODE: HookAgent = {
  name: "Qwen Code",
  projectFile: ".qwen/settings.json",
  userFile: "~/.qwen/settings.json",
  after: "",
};

export const GEMINI_CLI: HookAgent = {
  name: "Gemini CLI",
  projectFile: ".gemini/settings.json",
  userFile: "~/.gemini/settings.json",
  after: "",
};

/** Install for this project (without a workspace folder there is none), for all projects, or remove either. */
export function hookChoices(hasWorkspace: boolean, agent: HookAgent = CLAUDE_CODE): HookChoice[] {
  const project: HookChoice[] = hasWorkspace
    ? [{ label: "This project", detail: agent.projectFile, argument: { scope: "project" } }]
    : [];
  const removeProject: HookChoice[] = hasWorkspace
    ? [{ label: "Remove from this project", detail: agent.projectFile, argument: { scope: "project", uninstall: true } }]
    : [];
  return [
    ...project,
    { label: "All projects", detail: agent.userFile, argument: { scope: "user" } },
    ...removeProject,
    { label: "Remove from all projects", detail: agent.userFile, argument: { scope: "user", uninstall: true } },
  ];
}

/** The server's message, with the backup when the file was changed and had one. */
export function describeHookChange(
  result: InstallClaudeCodeHookResult,
  uninstall: boolean,
  agent: HookAgent = CLAUDE_CODE,
): Outcome {
  const backup = result.changed && result.backup !== null ? ` The previous file is kept as ${result.backup}.` : "";
  const next = result.changed && !uninstall ? agent.after : "";
  return { severity: "info", text: `${capitalize(result.message.replace(/\.$/, ""))}.${backup}${next}` };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
