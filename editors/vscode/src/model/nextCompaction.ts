// The warning before an agent compacts by itself (Usage.nextCompaction, docs/protocol.md): the gauge's line
// ("~949k tokens / ~53 turns to Claude Code's automatic compaction at 967k"), and one warning when it comes near,
// with what the user can do; a setting that silently turns the agent's automatic compaction off is named once.
// The owner is the agent that owns a followed session; undefined for our own sessions, which compact-lsp compacts.
// A warning stays on screen after the user switched sessions, so it names its session by title when it has one.
import type { NextCompaction, Usage } from "../protocol";
import { Commands } from "./commandIds";
import { formatTokens } from "./usageFormat";

/** "~949k tokens / ~53 turns", or undefined with nothing to say. */
function distance(next: NextCompaction): string | undefined {
  if (next.tokensLeft === null) {
    return undefined;
  }
  const turns = next.turnsLeft === null ? "" : ` / ~${next.turnsLeft} turn${next.turnsLeft === 1 ? "" : "s"}`;
  return `~${formatTokens(next.tokensLeft)} tokens${turns}`;
}

/** The gauge's line for a usage (the status bar's tooltip, the usage view), or undefined when the server said
 * nothing (not an agent's session it can tell). */
export function nextCompactionLine(usage: Usage, owner: string | undefined): string | undefined {
  const next = usage.nextCompaction;
  if (next === undefined) {
    return undefined;
  }
  const who = owner ?? OURS;
  if (next.disabledBy !== null) {
    return `${who} will not compact ${owner === undefined ? "this session " : ""}by itself: ${next.disabledBy} turns it off.`;
  }
  const far = distance(next);
  if (far === undefined || next.thresholdTokens === null) {
    return undefined;
  }
  return `${far} to ${who}'s automatic compaction at ${formatTokens(next.thresholdTokens)} (${next.origin}).`;
}

const OURS = "compact-lsp";

export interface NextCompactionWarning {
  text: string;
  actions: string[];
}

/** The longest title a warning quotes whole; a longer one ends in "…". */
const TITLE_CHARS = 60;

/** A session's title as a warning quotes it ("\"How is the report built?\""), or undefined without a title. */
function quoted(title: string | undefined): string | undefined {
  const chars = [...(title ?? "").trim()];
  if (chars.length === 0) {
    return undefined;
  }
  return `"${chars.length > TITLE_CHARS ? `${chars.slice(0, TITLE_CHARS - 1).join("").trimEnd()}…` : chars.join("")}"`;
}

/**
 * The warning for a usage near the agent's automatic compaction, or turned off. `title` is the session's title: the
 * warning stays on screen when the user switches sessions, so "this session" would name the wrong one by then.
 */
export function nextCompactionWarning(usage: Usage, owner: string | undefined, title?: string): NextCompactionWarning | undefined {
  const next = usage.nextCompaction;
  if (next === undefined) {
    return undefined;
  }
  const named = quoted(title);
  if (next.disabledBy !== null) {
    const who = owner ?? OURS;
    const which = named ?? (owner === undefined ? "this session" : undefined);
    return {
      text: `${who} will not compact ${which === undefined ? "" : `${which} `}by itself: ${next.disabledBy} turns it off, so the session runs into the end of its window.`,
      actions: ["Show Timeline"],
    };
  }
  if (!next.near) {
    return undefined;
  }
  const when =
    next.tokensLeft !== null && next.tokensLeft > 0
      ? `in ${distance(next)}`
      : `at its next step (${formatTokens(next.thresholdTokens ?? usage.total)} reached)`;
  if (owner === undefined) {
    return {
      text: `${named ?? "This session"} compacts by itself ${when}. Before it does: compact now with a focus, pin what must survive, or let it run (${next.origin}).`,
      actions: ["Compact Now…", "Pin a File…", "Let It Run"],
    };
  }
  return {
    text: `${owner} compacts ${named === undefined ? "" : `${named} `}by itself ${when}. Before it does: /compact with a focus in ${owner}, pin what must survive, or let it run (the hook brings your files back). ${next.origin}.`,
    actions: ["Pin a File…", "Show Timeline", "Let It Run"],
  };
}

/** The command a warning's button runs, with its arguments: on the session warned about, which is no longer the
 * current one when the user switched while the warning showed (undefined: Let It Run, or dismissed). */
export function warningCommand(choice: string | undefined, sessionId: string): [string, ...unknown[]] | undefined {
  switch (choice) {
    case "Compact Now…":
      return [Commands.compactConversation, sessionId];
    case "Show Timeline":
      return [Commands.showTimeline, sessionId];
    case "Pin a File…":
      return [Commands.pinFile]; // the open file, as Pin File does from the palette
    default:
      return undefined;
  }
}

/** Remembers what was last said per session, so each warning comes once: again only after the session moved away
 * (a compaction happened) and came near again. */
export class NextCompactionWarnings {
  private readonly said = new Map<string, "near" | "off">();

  /** The warning to show now for this usage, or undefined (nothing to say, or said already). */
  check(sessionId: string, usage: Usage, owner: string | undefined, title?: string): NextCompactionWarning | undefined {
    const next = usage.nextCompaction;
    const now = next === undefined ? undefined : next.disabledBy !== null ? "off" : next.near ? "near" : undefined;
    if (now === this.said.get(sessionId)) {
      return undefined;
    }
    if (now === undefined) {
      this.said.delete(sessionId);
      return undefined;
    }
    this.said.set(sessionId, now);
    return nextCompactionWarning(usage, owner, title);
  }
}
