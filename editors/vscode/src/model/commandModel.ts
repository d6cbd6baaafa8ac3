// Arguments for the server's workspace/executeCommand commands and the messages shown after they run.
import type { CompactResult, MicrocompactResult, UndoResult } from "../protocol";
import { ServerCommands } from "../protocol";
import { formatReduction, formatTokens } from "./usageFormat";

export interface ExecuteCommandParams {
  command: string;
  arguments: [Record<string, unknown>];
}

/** One argument object; without a sessionId the server acts on the most recently active session. */
export function executeCommandParams(
  command: string,
  sessionId: string | undefined,
  extra: Record<string, unknown> = {},
): ExecuteCommandParams {
  const argument: Record<string, unknown> = {};
  if (sessionId !== undefined && sessionId !== "") {
    argument.sessionId = sessionId;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) {
      argument[key] = value;
    }
  }
  return { command, arguments: [argument] };
}

/** compact.compact's params: the input box text as `instructions`, left out when blank. */
export function compactParams(sessionId: string | undefined, instructions: string | undefined): ExecuteCommandParams {
  const trimmed = instructions?.trim();
  return executeCommandParams(ServerCommands.compact, sessionId, {
    instructions: trimmed === undefined || trimmed === "" ? undefined : trimmed,
  });
}

export function describeMicrocompact(result: MicrocompactResult): string {
  const cleared = result.cleared.length;
  if (cleared === 0) {
    return `Microcompaction found nothing to clear (${formatTokens(result.tokensAfter)} tokens).`;
  }
  const kept = result.protected.length > 0 ? `; kept ${plural(result.protected.length, "managed-memory read")}` : "";
  return (
    `Microcompaction cleared ${plural(cleared, "tool result")}: ` +
    `${formatReduction(result.tokensBefore, result.tokensAfter)}${kept}.`
  );
}

export function describeCompact(result: CompactResult): string {
  const files = result.rehydrated.filter((item) => item.kind === "file").length;
  const restored = files > 0 ? `, ${plural(files, "file")} re-attached` : "";
  return `Conversation compacted: ${formatReduction(result.tokensBefore, result.tokensAfter)}${restored}.`;
}

export function describeUndo(result: UndoResult): string {
  return `Compaction undone: the conversation is back to ${formatTokens(result.tokensAfter)} tokens.`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
