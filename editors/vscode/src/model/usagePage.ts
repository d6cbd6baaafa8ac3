// The "Context usage" and "Rehydration preview" webview pages, rendered to HTML from the server's answers. Pure.
import type { RehydrationPreview, Status } from "../protocol";
import type { ContextItem } from "./contextPicture";
import { biggestItems, clearedItems, contextPicture } from "./contextPicture";
import type { SummaryFacts } from "./compactionText";
import { describeSummarizer } from "./compactionText";
import type { PageOptions } from "./html";
import { pinEffect, pinLabel, pinnedItems } from "./pins";
import { escapeHtml, page } from "./html";
import { formatPercent, formatReduction, formatTokens, formatUsage, kindLabel } from "./usageFormat";

export const KIND_COLORS: Record<string, string> = {
  system: "#8f6ac8",
  memory: "#c586c0",
  userText: "#4fc1ff",
  assistantText: "#3794ff",
  toolUse: "#d7ba7d",
  toolResult: "#ce9178",
  attachments: "#89d185",
};

function color(kind: string): string {
  return KIND_COLORS[kind] ?? "#9d9d9d";
}

/** `items` come from compact/messages; without them the page shows the kinds and read files only. */
/** Both figures side by side, and why they differ. */
export function estimatedVersusReported(estimated: number, reported: number): string {
  return (
    `Estimated ${formatTokens(estimated)}: what compact-lsp counts in the conversation now. ` +
    `Reported ${formatTokens(reported)}: what the API counted for the last request, which also holds the agent's own ` +
    `system prompt and tool definitions, and nothing cleared or added since.`
  );
}

export function renderUsagePage(status: Status, items: ContextItem[] | undefined, options: PageOptions): string {
  const usage = status.usage;
  const picture = contextPicture(usage);
  const segments = picture.segments
    .map(
      (s) =>
        `<div class="seg" data-kind="${escapeHtml(s.kind)}" style="width:${s.width.toFixed(3)}%;background:${color(s.kind)}" ` +
        `title="${escapeHtml(`${s.label}: ${formatTokens(s.tokens)}`)}"></div>`,
    )
    .join("");
  const bar =
    `<div class="bar" role="img" aria-label="${escapeHtml(`Context ${formatUsage(usage)}`)}">${segments}` +
    `<div class="free" style="width:${picture.freeWidth.toFixed(3)}%" title="Free: ${formatTokens(picture.free)}"></div>` +
    `<div class="marker warning" style="left:${picture.warningAt.toFixed(3)}%" title="Warning at ${formatTokens(usage.warningThreshold)}"></div>` +
    `<div class="marker auto" style="left:${picture.autoCompactAt.toFixed(3)}%" title="Auto-compact at ${formatTokens(usage.autoCompactThreshold)}"></div>` +
    `</div>`;
  const legend = picture.segments
    .map(
      (s) =>
        `<span><span class="swatch" style="background:${color(s.kind)}"></span>${escapeHtml(s.label)} ` +
        `${formatTokens(s.tokens)} (${formatPercent(s.width)})</span>`,
    )
    .join("");
  const off = usage.nextCompaction !== undefined && usage.nextCompaction.disabledBy !== null; // the window's filling
  const said = off
    ? "nothing compacts it by itself"
    : usage.level === "critical"
      ? "at the auto-compact threshold"
      : "near the auto-compact threshold";
  const level = usage.level === "ok" ? "" : ` <span class="level-${usage.level}">${said}</span>`;
  const parts = [
    `<h1>Context usage</h1>`,
    `<p id="summary"><strong>${escapeHtml(formatUsage(usage))}</strong>${level}` +
      `${status.compacting ? ' <span class="muted">(compacting…)</span>' : ""}</p>`,
    bar,
    `<div class="legend">${legend}</div>`,
    `<p class="muted">Free ${formatTokens(picture.free)} · warning at ${formatTokens(usage.warningThreshold)} · ` +
      `auto-compact at ${formatTokens(usage.autoCompactThreshold)}` +
      `</p>`,
  ];
  if (usage.reported !== undefined) {
    parts.push(`<p class="muted estimated-reported">${escapeHtml(estimatedVersusReported(usage.total, usage.reported))}</p>`);
  }
  if (items !== undefined) {
    const biggest = status.biggestItems
      ? status.biggestItems.map((b) => ({ ...b, cleared: b.label.endsWith("(cleared)") }))
      : biggestItems(items, 10);
    parts.push(`<h2>Biggest items</h2>`, itemsTable(biggest, "Nothing in the context yet."));
    const cleared = clearedItems(items);
    parts.push(
      `<h2>Cleared results (${cleared.length})</h2>`,
      itemsTable(cleared, "No tool results have been cleared.", false),
    );
  }
  const last = status.lastMicrocompaction;
  if (last !== null) {
    parts.push(
      `<p class="muted">Last microcompaction (${escapeHtml(last.trigger)}): cleared ${last.cleared.length}, ` +
        `${escapeHtml(formatReduction(last.tokensBefore, last.tokensAfter))}</p>`,
    );
  }
  if (status.lastCompaction !== null) {
    const c = status.lastCompaction;
    const summary = describeSummarizer(c as typeof c & SummaryFacts);
    parts.push(
      `<p class="muted">Last compaction: ${escapeHtml(formatReduction(c.tokensBefore, c.tokensAfter))}` +
        `${summary !== "" ? ` · ${escapeHtml(summary)}` : ""}</p>`,
    );
  }
  parts.push(workingSetLink(status.sessionId));
  const pins = pinnedItems(status);
  if (pins.length > 0) {
    const rows = pins
      .map(
        (pin) =>
          `<tr><td><code>${escapeHtml(pinLabel(pin))}</code></td><td>${pin.kind === "file" ? "file" : "tool result"}</td>` +
          `<td class="muted">${escapeHtml(pinEffect(pin))}</td></tr>`,
      )
      .join("");
    parts.push(
      `<h2>Pinned (${pins.length})</h2>`,
      `<div class="table-wrap"><table><tr><th>What</th><th>Kind</th><th>Effect</th></tr>${rows}</table></div>`,
    );
  }
  parts.push(`<h2>Read files (${status.readFiles.length})</h2>`, readFilesTable(status));
  return page("Context usage", parts.join("\n"), options);
}

/** A link that runs "Compact: Show Working Set" for the session (the panel allows that one command URI). */
export function workingSetLink(sessionId: string): string {
  const uri = `command:compact.showWorkingSet?${encodeURIComponent(JSON.stringify([sessionId]))}`;
  return (
    `<p class="working-set-link"><a href="${escapeHtml(uri)}">Working set</a>: what the agent changed, what went ` +
    `stale and what it last ran, as the model gets it after a compaction</p>`
  );
}

function itemsTable(items: ContextItem[], empty: string, showTokens = true): string {
  if (items.length === 0) {
    return `<p class="muted">${escapeHtml(empty)}</p>`;
  }
  const head = showTokens ? `<tr><th>Item</th><th>Kind</th><th class="num">≈ Tokens</th></tr>` : `<tr><th>Item</th><th>Kind</th></tr>`;
  const rows = items
    .map(
      (item) =>
        `<tr><td>${escapeHtml(item.label)}</td><td><span class="swatch" style="background:${color(item.kind)}"></span>` +
        `${escapeHtml(kindLabel(item.kind))}</td>${showTokens ? `<td class="num">${formatTokens(item.tokens)}</td>` : ""}</tr>`,
    )
    .join("");
  return `<div class="table-wrap"><table>${head}${rows}</table></div>`;
}

/** The files whose content is in the context now by the biggest items (a read, or what the agent re-attached after
 * its compaction: a followed session's read state does not see those), relative or absolute alike. */
function inContextPaths(status: Status): (path: string) => boolean {
  const paths = (status.biggestItems ?? [])
    .filter((item) => typeof item.path === "string" && !item.label.endsWith("(cleared)"))
    .map((item) => item.path as string);
  return (path) => paths.some((seen) => seen === path || seen.endsWith(`/${path}`) || path.endsWith(`/${seen}`));
}

function readFilesTable(status: Status): string {
  if (status.readFiles.length === 0) {
    return `<p class="muted">No files read in this session.</p>`;
  }
  const inContext = inContextPaths(status);
  const rows = status.readFiles
    .map((file) => {
      const gone = file.inHistory === false && !inContext(file.path); // never "not in context" beside a biggest item
      const flags = [file.open ? "open" : "", file.dirty ? "unsaved" : "", gone ? "not in context" : ""]
        .filter((flag) => flag !== "")
        .join(", ");
      return (
        `<tr><td><code>${escapeHtml(file.path)}</code></td>` +
        `<td class="${escapeHtml(file.freshness)}">${escapeHtml(file.freshness)}</td>` +
        `<td class="optional">${escapeHtml(file.range)}</td><td class="num">${formatTokens(file.tokens)}</td>` +
        `<td class="muted">${escapeHtml(flags)}</td></tr>`
      );
    })
    .join("");
  return (
    `<div class="table-wrap"><table><tr><th>File</th><th>Freshness</th><th class="optional">Range</th>` +
    `<th class="num">Tokens</th><th></th></tr>${rows}</table></div>`
  );
}

/** The token budget: `budget.tokenBudget` (docs/protocol.md); older servers sent the number itself. */
function budgetTokens(budget: unknown): number {
  if (typeof budget === "number") {
    return budget;
  }
  const tokens = (budget as { tokenBudget?: unknown } | null)?.tokenBudget;
  return typeof tokens === "number" ? tokens : 0;
}

export function renderRehydrationPage(preview: RehydrationPreview, options: PageOptions): string {
  const included = preview.candidates.filter((c) => c.included);
  const used = included.reduce((sum, c) => sum + c.tokens, 0);
  const rows = preview.candidates
    .map(
      (c, index) =>
        `<tr><td class="num">${index + 1}</td><td><code>${escapeHtml(c.path)}</code></td>` +
        `<td>${c.included ? "re-attached" : "left out"}</td><td class="num">${formatTokens(c.tokens)}</td>` +
        `<td class="num optional">${c.score.toFixed(2)}</td><td class="muted">${escapeHtml(c.reason)}</td></tr>`,
    )
    .join("");
  // older servers listed every candidate and sent no count
  const unlisted = typeof preview.unlisted === "number" ? preview.unlisted : 0;
  const total = preview.candidates.length + unlisted;
  const body = [
    `<h1>Rehydration preview</h1>`,
    `<p id="summary">After a compaction now, ${included.length} of ${total.toLocaleString("en-US")} files would be ` +
      `re-attached: ${formatTokens(used)} of the ${formatTokens(budgetTokens(preview.budget))} token budget.</p>`,
    preview.candidates.length === 0
      ? `<p class="muted">No candidates: no files have been read in this session.</p>`
      : `<div class="table-wrap"><table><tr><th class="num">#</th><th>File</th><th>Decision</th><th class="num">Tokens</th>` +
        `<th class="num optional">Score</th><th>Why</th></tr>${rows}</table></div>`,
    unlisted > 0
      ? `<p class="muted" id="unlisted">…and ${unlisted.toLocaleString("en-US")} more left out, not listed: ` +
        `older than these, and past the budget or the file limit by their size when last read (not read again).</p>`
      : "",
  ].join("\n");
  return page("Rehydration preview", body, options);
}
