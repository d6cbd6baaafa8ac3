// A compaction's summary, opened read-only: a virtual document of the compact-summary: scheme whose text the
// server's transcript gives (never an Untitled document that turns dirty and asks to be saved).
import * as vscode from "vscode";
import type { CompactClient } from "./client";
import {
  SUMMARY_SCHEME,
  compactionSummaries,
  parseResultPath,
  parseSummaryPath,
  resultDocumentText,
  parseTimelinePath,
  summaryDocumentText,
  summaryPath,
  timelineMarkdown,
  timelinePath,
} from "./model/compactionText";
import type { TimelineResult } from "./protocol";
import { Methods } from "./protocol";

export class SummaryDocuments implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly client: CompactClient) {
    this.registration = vscode.Disposable.from(
      vscode.workspace.registerTextDocumentContentProvider(SUMMARY_SCHEME, this),
      vscode.languages.registerDocumentLinkProvider({ scheme: SUMMARY_SCHEME }, this),
    );
  }

  /** The timeline's links to cleared results (`compact-summary:/result/…`) and to a row's whole summary, clickable
   * where they stand. */
  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const links: vscode.DocumentLink[] = [];
    const pattern = new RegExp(`${SUMMARY_SCHEME}:(/[^\\s]+)`, "g");
    for (let line = 0; line < document.lineCount; line++) {
      const text = document.lineAt(line).text;
      for (const match of text.matchAll(pattern)) {
        const start = match.index ?? 0;
        const range = new vscode.Range(line, start, line, start + match[0].length);
        const summary = parseSummaryPath(match[1]);
        const target =
          summary !== undefined
            ? SummaryDocuments.uri(summary.sessionId, summary.index) // its tab reads "Summary of compaction N.md"
            : vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: match[1] });
        links.push(new vscode.DocumentLink(range, target));
      }
    }
    return links;
  }

  static uri(sessionId: string, index: number): vscode.Uri {
    return vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: summaryPath(sessionId, index) });
  }

  /** A session's compaction timeline, read-only (compact/timeline, read when opened). */
  static timelineUri(sessionId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: SUMMARY_SCHEME, path: timelinePath(sessionId) });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const result = parseResultPath(uri.path);
    if (result !== undefined) {
      const answer = await this.client.request<{ entries?: unknown[] }>(Methods.transcript, { sessionId: result.sessionId });
      return resultDocumentText(answer.entries ?? [], result.toolUseId);
    }
    const timelineOf = parseTimelinePath(uri.path);
    if (timelineOf !== undefined) {
      return timelineMarkdown(await this.client.request<TimelineResult>(Methods.timeline, { sessionId: timelineOf }));
    }
    const where = parseSummaryPath(uri.path);
    if (where === undefined) {
      return summaryDocumentText(undefined);
    }
    const answer = await this.client.request<{ entries?: unknown[] }>(Methods.transcript, { sessionId: where.sessionId });
    return summaryDocumentText(compactionSummaries(answer.entries ?? [])[where.index]);
  }

  dispose(): void {
    this.registration.dispose();
  }
}
