// The chat webview: a static shell (the bundled webview script in dist/webview.js posts the user's input and swaps
// in the transcript HTML) and the transcript HTML itself, rendered here so it is unit-tested in Node.
import type { ApprovalState, ChatEntry, ChatTranscript } from "./chatModel";
import { pendingApproval } from "./chatModel";
import { describeMarker } from "./compactionText";
import type { PageOptions } from "./html";
import { escapeHtml, page } from "./html";
import { renderMarkdown } from "./markdown";

/** The permission prompt's buttons (docs/protocol.md, "Permission prompts"): their titles go back to the server. */
export const APPROVAL_ACTIONS = ["Allow once", "Allow for this session", "Deny"] as const;

function icon(name: string, extra = ""): string {
  return `<i class="codicon codicon-${name}${extra !== "" ? ` ${extra}` : ""}" aria-hidden="true"></i>`;
}

/** Tools whose permission prompt can show the proposed change in VS Code's diff editor. */
export function canShowDiff(tool: string, input: unknown): boolean {
  if (typeof input !== "object" || input === null) {
    return false;
  }
  const record = input as Record<string, unknown>;
  if (typeof record.file_path !== "string") {
    return false;
  }
  return (
    (tool === "edit_file" && typeof record.old_string === "string" && typeof record.new_string === "string") ||
    (tool === "write_file" && typeof record.content === "string")
  );
}

const DECIDED: Record<Exclude<ApprovalState, "pending">, [string, string]> = {
  "Allow once": ["check", "Allowed once"],
  "Allow for this session": ["check-all", "Allowed for this session"],
  Deny: ["close", "Denied"],
  dismissed: ["circle-slash", "Not answered (denied)"],
};

function renderApproval(entry: Extract<ChatEntry, { kind: "approval" }>): string {
  const [headline, ...rest] = entry.prompt.split("\n\n");
  const detail = rest.join("\n\n").trim();
  const id = escapeHtml(entry.id);
  const diff = canShowDiff(entry.tool, entry.input)
    ? `<button class="secondary" data-action="diff" data-id="${id}">${icon("diff")} Show diff</button>`
    : "";
  const body =
    `<div class="approval-head">${icon("shield")} <strong>${escapeHtml(headline)}</strong></div>` +
    (detail !== "" ? `<pre class="approval-detail">${escapeHtml(detail)}</pre>` : "");
  if (entry.state === "pending") {
    const buttons = APPROVAL_ACTIONS.map(
      (title, index) =>
        `<button class="${index === 0 ? "" : "secondary"}" data-action="approve" data-id="${id}" data-decision="${escapeHtml(title)}">` +
        `${escapeHtml(title)}</button>`,
    ).join("");
    return `<div class="entry approval pending" data-key="approval-${id}">${body}<div class="actions">${diff}${buttons}</div></div>`;
  }
  const [name, label] = DECIDED[entry.state];
  return (
    `<div class="entry approval decided ${entry.state === "Deny" || entry.state === "dismissed" ? "denied" : "allowed"}">` +
    `${body}<div class="muted">${icon(name)} ${escapeHtml(label)}</div></div>`
  );
}

/** `compacted`: above the last compaction boundary (summarised away: nothing there can be pinned any more). */
export function renderChatEntry(entry: ChatEntry, compacted = false): string {
  switch (entry.kind) {
    case "user":
      return `<div class="entry user">${escapeHtml(entry.text)}</div>`;
    case "assistant":
      return `<div class="entry assistant markdown">${renderMarkdown(entry.text)}</div>`;
    case "tool": {
      const state =
        entry.state === "running" ? icon("loading", "codicon-modifier-spin") : entry.state === "error" ? icon("error") : icon("check");
      const summary = entry.summary !== "" ? ` <code>${escapeHtml(entry.summary)}</code>` : "";
      const result = entry.result !== "" ? `<pre class="tool-result">${escapeHtml(entry.result)}</pre>` : "";
      const pin =
        entry.state === "done" && entry.id !== "" && !compacted
          ? `<button class="icon pin" data-action="pin" data-id="${escapeHtml(entry.id)}" title="Pin this result: microcompaction never clears it" aria-label="Pin this result">${icon("pin")}</button>`
          : "";
      const head = `<summary>${state} ${icon("tools")} ${escapeHtml(entry.name)}${summary}${pin}</summary>`;
      return `<details class="entry tool ${entry.state}" data-key="tool-${escapeHtml(entry.id)}">${head}${result}</details>`;
    }
    case "approval":
      return renderApproval(entry);
    case "marker": {
      const name = entry.compaction === "micro" ? "clear-all" : entry.compaction === "undo" ? "discard" : "fold";
      const fallback = entry.fallback === true ? " fallback" : "";
      return (
        `<div class="entry boundary ${entry.compaction}${fallback}" role="separator">` +
        `<span class="line"></span><span class="label">${icon(name)} ${escapeHtml(describeMarker(entry))}</span>` +
        `<span class="line"></span></div>`
      );
    }
    case "error":
      return `<div class="entry error">${icon("error")} ${escapeHtml(entry.text)}</div>`;
    case "notice":
      return `<div class="entry notice">${escapeHtml(entry.text)}</div>`;
  }
}

/**
 * The whole transcript. Entries above the last compaction boundary are dimmed: the model no longer has them, only
 * the summary (they stay readable for the user).
 */
export function renderTranscript(transcript: ChatTranscript): string {
  const boundary = transcript.entries.findLastIndex((entry) => entry.kind === "marker" && entry.compaction === "full");
  const entries = transcript.entries.map((entry, index) => {
    const html = renderChatEntry(entry, index < boundary);
    return index < boundary ? `<div class="compacted-away" title="Summarised: the model no longer sees this">${html}</div>` : html;
  });
  if (transcript.busy) {
    const waiting = pendingApproval(transcript) !== undefined;
    const status = waiting ? "Waiting for your approval…" : (transcript.status ?? "Working…");
    entries.push(
      `<div class="entry notice status">${icon(waiting ? "bell" : "loading", waiting ? "" : "codicon-modifier-spin")} ${escapeHtml(status)}</div>`,
    );
  }
  if (entries.length === 0) {
    return (
      `<div class="welcome">${icon("comment-discussion")}<p>Ask the agent about this workspace. It reads files through ` +
      `the context engine, so the status bar shows what the conversation costs.</p></div>`
    );
  }
  return entries.join("\n");
}

/** What the extension posts to the webview after every change. */
export interface TranscriptMessage {
  type: "transcript";
  html: string;
  busy: boolean;
  title: string;
}

export function transcriptMessage(transcript: ChatTranscript, title = ""): TranscriptMessage {
  return { type: "transcript", html: renderTranscript(transcript), busy: transcript.busy, title };
}

/** What the webview posts back. */
export type ChatViewRequest =
  | { type: "send"; text: string }
  | { type: "stop" }
  | { type: "ready" }
  | { type: "approve"; id: string; decision: (typeof APPROVAL_ACTIONS)[number] }
  | { type: "diff"; id: string }
  | { type: "copy"; text: string }
  | { type: "pin"; id: string };

export function parseChatViewRequest(raw: unknown): ChatViewRequest | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const message = raw as { type?: unknown; text?: unknown; id?: unknown; decision?: unknown };
  if (message.type === "send" && typeof message.text === "string" && message.text.trim() !== "") {
    return { type: "send", text: message.text.trim() };
  }
  if (message.type === "stop" || message.type === "ready") {
    return { type: message.type };
  }
  if (message.type === "approve" && typeof message.id === "string") {
    const decision = APPROVAL_ACTIONS.find((title) => title === message.decision);
    return decision === undefined ? undefined : { type: "approve", id: message.id, decision };
  }
  if (message.type === "diff" && typeof message.id === "string") {
    return { type: "diff", id: message.id };
  }
  if (message.type === "pin" && typeof message.id === "string" && message.id !== "") {
    return { type: "pin", id: message.id };
  }
  if (message.type === "copy" && typeof message.text === "string") {
    return { type: "copy", text: message.text };
  }
  return undefined;
}

export function renderChatShell(options: PageOptions): string {
  const body = `<div id="title" class="chat-title muted"></div>
<div id="log" class="chat" aria-live="polite"></div>
<div class="composer">
<textarea id="input" rows="2" placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line)" aria-label="Message"></textarea>
<div class="composer-buttons">
<button id="send" title="Send">${icon("send")}<span class="label"> Send</span></button>
<button id="stop" class="secondary" title="Stop" disabled>${icon("debug-stop")}<span class="label"> Stop</span></button>
</div>
</div>`;
  return page("Compact chat", body, { ...options, bodyClass: "chat-page" });
}
