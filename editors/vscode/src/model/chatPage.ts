// The chat webview: a static shell (the bundled webview script in dist/webview.js posts the user's input and swaps
// in the transcript HTML) and the transcript HTML itself, rendered here so it is unit-tested in Node.
import type { ApprovalState, ChatEntry, ChatTranscript, EditedFile } from "./chatModel";
import { pendingApproval } from "./chatModel";
import { renderApprovalDiff } from "./approvalDiff";
import { describeMarker } from "./compactionText";
import type { PageOptions } from "./html";
import { escapeHtml, page } from "./html";
import { renderMarkdown } from "./markdown";
import { splitAttachments } from "./mentions";

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

/** "Edited src/data.py +1 −1": a link that opens the file at the change (the chat's links open files). */
export function renderEdited(entry: EditedFile): string {
  const href = `${encodeURI(entry.path).replace(/#/g, "%23")}${entry.line > 0 ? `#L${entry.line}` : ""}`;
  const counts =
    `<span class="added" aria-label="${entry.added} lines added">+${entry.added}</span> ` +
    `<span class="removed" aria-label="${entry.removed} lines removed">\u2212${entry.removed}</span>`;
  return (
    `<div class="entry edited">${icon("diff")} Edited <a href="${escapeHtml(href)}" title="Open ${escapeHtml(entry.path)} at the change">` +
    `${escapeHtml(entry.path)}</a> ${counts}</div>`
  );
}

function renderApproval(entry: Extract<ChatEntry, { kind: "approval" }>): string {
  const [headline, ...rest] = entry.prompt.split("\n\n");
  const detail = rest.join("\n\n").trim();
  const id = escapeHtml(entry.id);
  const diff = canShowDiff(entry.tool, entry.input)
    ? `<button class="secondary" data-action="diff" data-id="${id}">${icon("diff")} Show diff</button>`
    : "";
  // The buttons come right under the headline, so they are in view however long the change is.
  const head = `<div class="approval-head">${icon("shield")} <strong>${escapeHtml(headline)}</strong></div>`;
  const change =
    entry.diff !== undefined
      ? renderApprovalDiff(entry.diff)
      : detail !== ""
        ? `<pre class="approval-detail">${escapeHtml(detail)}</pre>`
        : "";
  if (entry.state === "pending") {
    const buttons = APPROVAL_ACTIONS.map(
      (title, index) =>
        `<button class="${index === 0 ? "" : "secondary"}" data-action="approve" data-id="${id}" data-decision="${escapeHtml(title)}">` +
        `${escapeHtml(title)}</button>`,
    ).join("");
    return `<div class="entry approval pending" data-key="approval-${id}">${head}<div class="actions">${buttons}${diff}</div>${change}</div>`;
  }
  const [name, label] = DECIDED[entry.state];
  return (
    `<div class="entry approval decided ${entry.state === "Deny" || entry.state === "dismissed" ? "denied" : "allowed"}">` +
    `${head}<div class="muted">${icon(name)} ${escapeHtml(label)}</div></div>`
  );
}

/**
 * `compacted`: above the last compaction boundary (summarised away: nothing there can be pinned any more).
 * `boundary`: the index of a full compaction marker among the transcript's full markers (its summary is opened by it).
 */
export function renderChatEntry(entry: ChatEntry, compacted = false, boundary = -1): string {
  switch (entry.kind) {
    case "user": {
      const { text, files } = splitAttachments(entry.text);
      const chips = files
        .map(
          (file) =>
            `<details class="attachment"><summary>${icon("file")} ${escapeHtml(file.path)}</summary>` +
            `<pre class="tool-result">${escapeHtml(file.content.split("\n").slice(0, 12).join("\n"))}</pre></details>`,
        )
        .join("");
      return `<div class="entry user">${escapeHtml(text)}${chips !== "" ? `<div class="attachments">${chips}</div>` : ""}</div>`;
    }
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
      const text = `${icon(name)} ${escapeHtml(describeMarker(entry))}`;
      const label =
        entry.compaction === "full" && boundary >= 0
          ? `<button class="link label" data-action="summary" data-id="${boundary}" title="Open the summary the model read instead of the conversation above">${text}</button>`
          : `<span class="label">${text}</span>`;
      return (
        `<div class="entry boundary ${entry.compaction}${fallback}" role="separator">` +
        `<span class="line"></span>${label}<span class="line"></span></div>`
      );
    }
    case "error": {
      const action =
        entry.action === "compact.setApiKey"
          ? ` <button class="secondary" data-action="command" data-id="compact.setApiKey">${icon("key")} Set API Key</button>`
          : "";
      return `<div class="entry error">${icon("error")} ${escapeHtml(entry.text)}${action}</div>`;
    }
    case "notice":
      return `<div class="entry notice">${escapeHtml(entry.text)}</div>`;
    case "edited":
      return renderEdited(entry);
  }
}

/**
 * The last full compaction still standing (an undo reverts the newest standing one), or -1: what is above it the
 * model no longer has.
 */
export function standingBoundary(entries: readonly ChatEntry[]): number {
  const standing: number[] = [];
  entries.forEach((entry, index) => {
    if (entry.kind === "marker" && entry.compaction === "full") {
      standing.push(index);
    } else if (entry.kind === "marker" && entry.compaction === "undo") {
      standing.pop();
    }
  });
  return standing.length > 0 ? standing[standing.length - 1] : -1;
}

/**
 * The whole transcript. Entries above the last compaction boundary still standing are dimmed: the model no longer
 * has them, only the summary (they stay readable for the user). After an undo they are back in context, undimmed.
 */
export function renderTranscript(transcript: ChatTranscript, activity?: string): string {
  const boundary = standingBoundary(transcript.entries);
  let fullMarkers = 0;
  const entries = transcript.entries.map((entry, index) => {
    const full = entry.kind === "marker" && entry.compaction === "full" ? fullMarkers++ : -1;
    const html = renderChatEntry(entry, index < boundary, full);
    return index < boundary ? `<div class="compacted-away" title="Summarised: the model no longer sees this">${html}</div>` : html;
  });
  if (transcript.busy) {
    const waiting = pendingApproval(transcript) !== undefined;
    const status = waiting ? "Waiting for your approval…" : (activity ?? transcript.status ?? "Working…");
    entries.push(
      `<div class="entry notice status">${icon(waiting ? "bell" : "loading", waiting ? "" : "codicon-modifier-spin")} ${escapeHtml(status)}</div>`,
    );
  } else if (activity !== undefined) {
    entries.push(`<div class="entry notice status activity">${icon("loading", "codicon-modifier-spin")} ${escapeHtml(activity)}</div>`);
  }
  if (entries.length === 0) {
    return WELCOME;
  }
  return entries.join("\n");
}

/** Commands the empty chat's welcome (and the read-only bar) may run: nothing else is accepted from the webview. */
export const WELCOME_COMMANDS = [
  "compact.importSession",
  "compact.setApiKey",
  "compact.openWalkthrough",
  "workbench.trust.manage",
  "compact.restartServer",
  "compact.showServerLog",
  "workbench.action.openSettings",
  "compact.newChat",
] as const;

const WELCOME =
  `<div class="welcome">${icon("comment-discussion")}` +
  `<h2>Ask the agent about this workspace</h2>` +
  `<p>It reads and edits files through the context engine: the status bar shows what the conversation costs, and ` +
  `the conversation is compacted before it runs out of room.</p>` +
  `<ul class="tips">` +
  `<li>Type <code>@</code> and a file's path to attach it, e.g. <code>@src/app.py</code>.</li>` +
  `<li><kbd>Enter</kbd> sends, <kbd>Shift+Enter</kbd> starts a new line, <kbd>Escape</kbd> stops the agent.</li>` +
  `<li>Links to files in answers open them.</li>` +
  `</ul>` +
  `<div class="actions welcome-actions">` +
  `<button class="secondary" data-action="command" data-id="compact.importSession">${icon("cloud-download")} Import a Claude Code session…</button>` +
  `<button class="secondary" data-action="command" data-id="compact.setApiKey">${icon("key")} Set API Key</button>` +
  `<button class="secondary" data-action="command" data-id="compact.openWalkthrough">${icon("book")} Get started</button>` +
  `</div></div>`;

/** What the extension posts to the webview after every change. */
export interface TranscriptMessage {
  type: "transcript";
  html: string;
  busy: boolean;
  /** A session this chat cannot write to (Claude Code's): no input, "Import to continue" instead. */
  readOnly: boolean;
  /** Who owns it ("Claude Code", "Codex"), for the read-only bar. */
  owner?: string;
  /** Restricted Mode: no server, no input; the page says why and how to trust the workspace. */
  restricted?: boolean;
}

/**
 * The chat's page after a change. The session's title is not in it: the view's own title bar shows it (its
 * description), once.
 */
export function transcriptMessage(transcript: ChatTranscript, owner: string | undefined = undefined, activity?: string): TranscriptMessage {
  const message: TranscriptMessage = { type: "transcript", html: renderTranscript(transcript, activity), busy: transcript.busy, readOnly: owner !== undefined };
  if (owner !== undefined) {
    message.owner = owner;
  }
  return message;
}

/** What the chat says of a session another window writes (`openElsewhere` in compact/sessions). */
export const OPEN_ELSEWHERE_TEXT =
  "This chat is open in another window, which writes it; here it is read-only. Continue it there, or start a New Chat here.";

/** A session another window writes: its chat as it is, no input, and where to go on (that window, or New Chat). */
export function openElsewhereMessage(transcript: ChatTranscript, activity?: string): TranscriptMessage {
  const said =
    `<div class="entry notice elsewhere">${icon("lock")} ${escapeHtml(OPEN_ELSEWHERE_TEXT)} ` +
    `<button class="secondary" data-action="command" data-id="compact.newChat">${icon("add")} New Chat</button></div>`;
  const message = transcriptMessage({ ...transcript, busy: false }, undefined, activity);
  return { ...message, html: message.html + said, restricted: true }; // restricted: the input is hidden
}

/** What the chat shows in Restricted Mode instead of nothing. */
export function restrictedMessage(): TranscriptMessage {
  const html =
    `<div class="welcome restricted">${icon("shield")}<h2>Compact is paused in Restricted Mode</h2>` +
    `<p>This folder is not trusted, so Compact does not start its server: the agent reads and edits files, and the ` +
    `folder's settings steer it. Trust the folder to use the chat, the gauge and compaction.</p>` +
    `<div class="actions welcome-actions"><button data-action="command" data-id="workbench.trust.manage">` +
    `${icon("workspace-trusted")} Manage Workspace Trust</button></div></div>`;
  return { type: "transcript", html, busy: false, readOnly: false, restricted: true };
}

/**
 * What the chat shows when the server did not start (no input: nothing would answer it): why (`text`, the failure's
 * cause) and the ways on; Open Settings when a setting is at fault.
 */
export function serverNotStartedMessage(text: string, setting?: string): TranscriptMessage {
  const settings =
    setting !== undefined
      ? `<button data-action="command" data-id="workbench.action.openSettings">${icon("settings-gear")} Open Settings</button>`
      : "";
  const html =
    `<div class="welcome not-started">${icon("error")}<h2>Compact's server did not start</h2>` +
    `<p class="reason">${escapeHtml(text)}</p><p>Fix that, then restart the server; its log has the details.</p>` +
    `<div class="actions welcome-actions">${settings}` +
    `<button class="${settings === "" ? "" : "secondary"}" data-action="command" data-id="compact.restartServer">${icon("debug-restart")} Restart Server</button>` +
    `<button class="secondary" data-action="command" data-id="compact.showServerLog">${icon("output")} Show Server Log</button></div></div>`;
  return { type: "transcript", html, busy: false, readOnly: false, restricted: true };
}

/** What the webview posts back. */
export type ChatViewRequest =
  | { type: "send"; text: string }
  | { type: "stop" }
  | { type: "ready" }
  | { type: "approve"; id: string; decision: (typeof APPROVAL_ACTIONS)[number] }
  | { type: "diff"; id: string }
  | { type: "copy"; text: string }
  | { type: "pin"; id: string }
  | { type: "open"; href: string }
  | { type: "summary"; index: number }
  | { type: "import" }
  | { type: "mention"; query: string }
  | { type: "command"; command: (typeof WELCOME_COMMANDS)[number] };

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
  if (message.type === "open" && typeof (raw as { href?: unknown }).href === "string") {
    return { type: "open", href: (raw as { href: string }).href };
  }
  if (message.type === "summary" && typeof message.id === "string" && /^\d+$/.test(message.id)) {
    return { type: "summary", index: Number(message.id) };
  }
  if (message.type === "mention" && typeof message.text === "string" && message.text.length <= 200) {
    return { type: "mention", query: message.text };
  }
  if (message.type === "import") {
    return { type: "import" };
  }
  if (message.type === "command") {
    const command = WELCOME_COMMANDS.find((id) => id === message.id);
    return command === undefined ? undefined : { type: "command", command };
  }
  return undefined;
}

export function renderChatShell(options: PageOptions): string {
  const body = `<div id="log" class="chat" aria-live="polite"></div>
<div id="readonly" class="readonly-bar" hidden>
<p>${icon("lock")} <strong><span class="owner">Claude Code</span>'s live session, read-only here.</strong>
<span class="owner">Claude Code</span> owns its context; you can watch it grow. To work on it here, import a copy.</p>
<button id="import" data-action="import">${icon("cloud-download")} Import to continue</button>
</div>
<div id="composer" class="composer">
<textarea id="input" rows="2" placeholder="Ask the agent… (@file attaches a file; Enter sends, Shift+Enter for a new line)" aria-label="Message"></textarea>
<div class="composer-buttons">
<button id="send" title="Send (Enter)">${icon("send")}<span class="label"> Send</span></button>
<button id="stop" class="secondary" title="Stop (Escape)" disabled>${icon("debug-stop")}<span class="label"> Stop</span></button>
</div>
</div>`;
  return page("Compact chat", body, { ...options, bodyClass: "chat-page" });
}
