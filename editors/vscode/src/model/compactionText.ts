// How a compaction reads to a person, the same in a toast and in the chat's marker: which summariser wrote the
// summary and, when the model failed and the offline summariser stood in, why.
import { formatReduction } from "./usageFormat";

export interface SummaryFacts {
  summarizer?: string;
  fallback?: boolean;
  fallbackReason?: string | null;
}

const SUMMARIZERS: Record<string, string> = {
  anthropic: "summary by the model",
  offline: "offline summary (no model call)",
  "session-memory": "summary from the session notes (no model call)",
};

/** "summary by the model" · "offline summary, because the model failed: overloaded: 529". */
export function describeSummarizer(facts: SummaryFacts): string {
  if (facts.fallback === true) {
    const reason = facts.fallbackReason?.trim().replace(/\.+$/, "");
    return `offline summary, because the model failed${reason ? `: ${reason}` : ""}`;
  }
  if (facts.summarizer === undefined || facts.summarizer === "") {
    return "";
  }
  return SUMMARIZERS[facts.summarizer] ?? `summary by ${facts.summarizer}`;
}

const TRIGGERS: Record<string, string> = {
  manual: "",
  auto: "automatically",
  idle: "after an idle pause",
  size: "on size",
  forced: "forced",
};

/** "automatically", "" for manual; unknown triggers are shown as they are. */
export function describeTrigger(trigger: string): string {
  return TRIGGERS[trigger] ?? trigger;
}

export interface MarkerFacts extends SummaryFacts {
  compaction: "full" | "micro" | "undo";
  trigger: string;
  tokensBefore: number;
  tokensAfter: number;
  cleared?: number;
}

/** The one line a compaction marker shows in the chat. */
export function describeMarker(marker: MarkerFacts): string {
  const how = describeTrigger(marker.trigger);
  const reduction = formatReduction(marker.tokensBefore, marker.tokensAfter);
  if (marker.compaction === "undo") {
    return marker.tokensAfter > 0 ? `Compaction undone: ${reduction}` : "Compaction undone";
  }
  if (marker.compaction === "micro") {
    const what =
      marker.cleared === undefined
        ? "Old tool results cleared"
        : `${marker.cleared} old tool result${marker.cleared === 1 ? "" : "s"} cleared`;
    return `${what}${how !== "" ? ` (${how})` : ""}: ${reduction}`;
  }
  const summary = describeSummarizer(marker);
  return `Conversation compacted${how !== "" ? ` ${how}` : ""}: ${reduction}${summary !== "" ? ` · ${summary}` : ""}`;
}
