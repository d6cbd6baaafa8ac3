// How token figures and usage read to a person: "48.2k / 200k (24%)". No vscode import: unit-tested directly.
import type { Usage } from "../protocol";

/** 950 → "950", 48211 → "48.2k", 200000 → "200k", 1250000 → "1.25M". */
export function formatTokens(tokens: number): string {
  const n = Math.max(0, Math.round(tokens));
  if (n < 1000) {
    return String(n);
  }
  if (n < 1_000_000) {
    const k = n / 1000;
    // 999_960 would round to "1000.0k"; promote to M instead.
    if (k >= 999.95) {
      return formatMillions(n);
    }
    return `${trimZeros(k.toFixed(k < 100 ? 1 : 0))}k`;
  }
  return formatMillions(n);
}

function formatMillions(n: number): string {
  return `${trimZeros((n / 1_000_000).toFixed(2))}M`;
}

function trimZeros(fixed: string): string {
  return fixed.includes(".") ? fixed.replace(/\.?0+$/, "") : fixed;
}

/** Whole percent, but never "0%" for a non-empty context nor "100%" below the window. */
export function formatPercent(percent: number): string {
  if (percent > 0 && percent < 1) {
    return "<1%";
  }
  if (percent < 100 && percent > 99) {
    return "99%";
  }
  return `${Math.round(percent)}%`;
}

export function formatUsage(usage: Usage): string {
  return `${formatTokens(usage.total)} / ${formatTokens(usage.contextWindow)} (${formatPercent(usage.percent)})`;
}

/** "48.2k → 12.0k (−36.2k)" for a before/after pair. */
export function formatReduction(before: number, after: number): string {
  const saved = before - after;
  const sign = saved >= 0 ? "−" : "+";
  return `${formatTokens(before)} → ${formatTokens(after)} (${sign}${formatTokens(Math.abs(saved))})`;
}

export const KIND_LABELS: Record<string, string> = {
  system: "System prompt",
  memory: "Managed memory",
  userText: "User text",
  assistantText: "Assistant text",
  toolUse: "Tool calls",
  toolResult: "Tool results",
  attachments: "Attachments",
  thinking: "Thinking",
  images: "Images",
};

/** "toolResult" → "Tool results"; unknown kinds are split at capitals. */
export function kindLabel(kind: string): string {
  const known = KIND_LABELS[kind];
  if (known !== undefined) {
    return known;
  }
  const words = kind.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
