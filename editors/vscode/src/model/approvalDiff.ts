// The change a permission prompt would make, as a unified diff with context (jsdiff's structuredPatch), drawn in
// the chat above nothing but the prompt's buttons. Pure: the chat view reads the file and passes its text.
import { structuredPatch } from "diff";
import { escapeHtml } from "./html";
import { proposedChange } from "./proposedChange";

/** Lines of context around each change, as `git diff` shows. */
export const CONTEXT_LINES = 3;
/** A diff longer than this is cut (the diff editor behind "Show diff" shows all of it). */
export const MAX_DIFF_LINES = 200;

export interface ApprovalDiff {
  /** `@@ -1,4 +1,4 @@` headers and ` `/`-`/`+` lines, as `diff -u` prints them (no file header). */
  lines: string[];
  added: number;
  removed: number;
  /** Lines left out past MAX_DIFF_LINES. */
  omitted: number;
  /** Why the edit cannot apply as given (the tool will refuse it too). */
  problem?: string;
  /** The file's workspace path when an editor holds unsaved changes to it: the agent edits the file on disk. */
  unsaved?: string;
}

/** The diff of an edit_file/write_file call against the file's text now (undefined: it does not exist). */
export function approvalDiff(tool: string, input: unknown, before: string | undefined): ApprovalDiff | undefined {
  const change = proposedChange(tool, input, before);
  if (change === undefined) {
    return undefined;
  }
  const patch = structuredPatch(change.filePath, change.filePath, before ?? "", change.after, "", "", {
    context: CONTEXT_LINES,
  });
  const lines: string[] = [];
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    // as diff -u (and jsdiff's own formatPatch) print it: an empty side starts before line 1
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) {
        continue; // "\ No newline at end of file"
      }
      added += line.startsWith("+") ? 1 : 0;
      removed += line.startsWith("-") ? 1 : 0;
      lines.push(line);
    }
  }
  const omitted = Math.max(0, lines.length - MAX_DIFF_LINES);
  const diff: ApprovalDiff = { lines: lines.slice(0, MAX_DIFF_LINES), added, removed, omitted };
  if (change.problem !== undefined) {
    diff.problem = change.problem;
  }
  return diff;
}

/** The diff as the chat draws it: one row per line, coloured by its first character. */
export function renderApprovalDiff(diff: ApprovalDiff): string {
  if (diff.problem !== undefined) {
    return `<div class="diff-problem">${escapeHtml(diff.problem)} The edit will be refused if you allow it.</div>`;
  }
  const rows = diff.lines.map((line) => {
    const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
    return `<span class="diff-line ${kind}">${escapeHtml(line === "" ? " " : line)}</span>`;
  });
  if (diff.omitted > 0) {
    rows.push(`<span class="diff-line hunk">… ${diff.omitted} more lines: Show diff has them all</span>`);
  }
  const stat = `<div class="diff-stat muted"><span class="add">+${diff.added}</span> <span class="del">−${diff.removed}</span></div>`;
  const unsaved =
    diff.unsaved !== undefined
      ? `<div class="diff-problem unsaved">${escapeHtml(diff.unsaved)} has unsaved changes in its editor. Allowing edits the ` +
        "file on disk as shown here, not your unsaved text; you then choose which version to keep.</div>"
      : "";
  return `${unsaved}${stat}<pre class="diff" aria-label="Proposed change, unified diff">${rows.join("")}</pre>`;
}
