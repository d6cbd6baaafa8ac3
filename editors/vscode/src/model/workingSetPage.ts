// The "Working set" webview page, rendered to HTML from compact/workingSet: the ledger the model gets after a
// compaction, as rows with links (a file opens in the editor on a click: the page posts the row's index, the
// extension opens that row's URI, never one the page names). Pure.
import type { WorkingSetResult, WorkingSetRow } from "../protocol";
import type { PageOptions } from "./html";
import { escapeHtml, page } from "./html";

interface Section {
  title: string;
  rows: (row: WorkingSetRow) => boolean;
}

const SECTIONS: Section[] = [
  { title: "Commands", rows: (row) => row.kind === "command" },
  {
    title: "Changed by you, then by someone else since (read them again before editing)",
    rows: (row) => row.kind === "edited" && row.outside === true,
  },
  { title: "Changed by you", rows: (row) => row.kind === "edited" && row.outside !== true },
  { title: "Read, and changed on disk since (read them again before editing)", rows: (row) => row.kind === "stale" },
  { title: "Open plan items", rows: (row) => row.kind === "plan" },
];

/** A row's figures, in words: what the line after its path says. */
export function rowFigures(row: WorkingSetRow): string {
  const line = row.line.replace(/^- /, "");
  if (row.path !== undefined && line.startsWith(`${row.path}: `)) {
    return line.slice(row.path.length + 2);
  }
  return line;
}

function rowHtml(row: WorkingSetRow, index: number): string {
  if (row.kind === "command") {
    const failed = row.ok === false ? " class=\"stale\"" : "";
    const decisive = row.decisive ? `<div class="muted"><code>${escapeHtml(row.decisive)}</code></div>` : "";
    return (
      `<li><span class="muted">${escapeHtml(row.label ?? "")}</span> <code>${escapeHtml(row.command ?? "")}</code> ` +
      `<span${failed}>${escapeHtml(row.status ?? "")}</span>${decisive}</li>`
    );
  }
  if (row.path === undefined) {
    return `<li>${escapeHtml(row.line.replace(/^- /, ""))}</li>`;
  }
  const name =
    row.uri !== undefined && row.gone !== true
      ? `<a href="#" data-row="${index}" title="${escapeHtml(row.absolutePath ?? row.path)}">${escapeHtml(row.path)}</a>`
      : `<span>${escapeHtml(row.path)}</span>`;
  return `<li>${name} <span class="muted">${escapeHtml(rowFigures(row))}</span></li>`;
}

export function renderWorkingSetPage(result: WorkingSetResult, title: string, options: PageOptions): string {
  const rows = result.rows;
  const parts = [
    `<h1>Working set</h1>`,
    `<p class="muted">${escapeHtml(title)} · ${rows.length} fact${rows.length === 1 ? "" : "s"}, checked against the ` +
      `disk just now · the model gets ${result.characters.toLocaleString("en-US")} characters of it after a ` +
      `compaction${result.leftOut > 0 ? ` (${result.leftOut} left out for its budget)` : ""}</p>`,
  ];
  if (rows.length === 0) {
    parts.push(`<p>Nothing yet: no file changed, no stale read, no command whose end the log records.</p>`);
  }
  for (const section of SECTIONS) {
    const shown = rows.map((row, index) => ({ row, index })).filter(({ row }) => section.rows(row));
    if (shown.length > 0) {
      parts.push(`<h2>${escapeHtml(section.title)}</h2><ul class="working-set">`);
      parts.push(...shown.map(({ row, index }) => rowHtml(row, index)));
      parts.push(`</ul>`);
    }
  }
  if (result.text !== "") {
    parts.push(`<details><summary>What the model gets</summary><pre>${escapeHtml(result.text)}</pre></details>`);
  }
  return page("Working set", parts.join("\n"), options, OPEN_SCRIPT);
}

/** A click on a file posts its row's index. */
const OPEN_SCRIPT = `
const vscode = acquireVsCodeApi();
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-row]");
  if (link) {
    event.preventDefault();
    vscode.postMessage({ open: Number(link.dataset.row) });
  }
});`;
